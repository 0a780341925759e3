// A partition's `topic-partition` key (the consumers' map key, as Kafka's TopicPartition.toString prints it) and
// the order members sort partitions in.
import type { TopicPartitionRef } from './consumer.ts';

export const keyOf = (tp: TopicPartitionRef): string => `${tp.topic}-${tp.partition}`;

export const byTopicPartition = (a: TopicPartitionRef, b: TopicPartitionRef): number =>
  a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition;
