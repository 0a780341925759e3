// Either consumer: assign mode (Consumer) or a group member (GroupConsumer). Each owns a fetcher and shows the
// same counters and positions (recordsConsumed, bytesConsumed, lag, position, assignedPartitions, onRecords,
// errorCounts, resets), which is what reports, workloads and the cluster's client list read.
import type { Consumer } from './consumer.ts';
import type { GroupConsumer } from './group-consumer.ts';

export type AnyConsumer = Consumer | GroupConsumer;
