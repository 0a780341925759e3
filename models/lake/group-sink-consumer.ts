// A sink worker's consumer on the real group protocol: models/clients' GroupConsumer (librdkafka flavour,
// subscribe mode, coordinator on the brokers) seen through the SinkConsumer interface. Records the member hands
// over go into a fetch queue the worker polls from; librdkafka's rebalance_cb becomes a held revocation (the
// member does not rejoin until the worker releases it), and without one the revoked partitions' queued records
// are dropped at once, as librdkafka purges its fetch queue on unassign.

import {
  type ClientFlavour,
  GroupConsumer,
  type GroupConsumerConfigInput,
  type TopicPartitionRef,
} from '../clients/index.ts';
import type { TopicPartition } from '../group/assignors/index.ts';
import { errorByCode } from '../protocol/index.ts';
import type { NodeId, Simulation } from '../sim/index.ts';
import { FetchQueue } from './fetch-queue.ts';
import type { CommitOffset, MessageSlice, RebalanceEvent, SinkConsumer } from './sink-consumer.ts';

export interface GroupSinkConsumerOptions {
  /** Default librdkafka (confluent-kafka-go); java for what-ifs. */
  flavour?: ClientFlavour;
  groupId: string;
  topic: string;
  bootstrap: NodeId[];
  /** librdkafka settings (the service's: enable.auto.commit=false, auto.offset.reset=earliest, ...). */
  config?: GroupConsumerConfigInput;
}

export class GroupSinkConsumer implements SinkConsumer {
  readonly member: GroupConsumer;
  private readonly fetched = new FetchQueue();
  private listener: ((e: RebalanceEvent) => void) | undefined;
  private manualRevoke = false;

  constructor(
    sim: Simulation,
    readonly clientId: NodeId,
    options: GroupSinkConsumerOptions,
  ) {
    this.member = new GroupConsumer(sim, clientId, {
      flavour: options.flavour ?? 'librdkafka',
      groupId: options.groupId,
      topics: [options.topic],
      bootstrap: options.bootstrap,
      // librdkafka's client.id stays its default (`rdkafka`) unless the service's config sets one.
      config: { ...options.config },
      listener: {
        onPartitionsRevoked: (partitions, ctl) => this.revoked(partitions, () => ctl.hold()),
        onPartitionsLost: (partitions) => this.revoked(partitions, undefined),
        onPartitionsAssigned: () =>
          this.listener?.({ type: 'assigned', partitions: this.member.ownedPartitions() }),
      },
    });
    this.member.onRecords((c) => this.fetched.add(c));
  }

  start(): void {
    if (!this.member.up) this.member.start();
  }

  close(): void {
    this.fetched.drop();
    this.member.close();
  }

  crash(): void {
    this.fetched.drop();
    this.member.crash();
  }

  get queued(): number {
    return this.fetched.queued;
  }

  onReadable(listener: () => void): void {
    this.fetched.onReadable(listener);
  }

  poll(max: number): MessageSlice[] {
    return this.fetched.poll(max);
  }

  commit(offsets: readonly CommitOffset[], done: (error: string | undefined) => void): void {
    this.member.commitOffsets(
      offsets.map((o) => ({ ...o })),
      (code) => done(code === 0 ? undefined : errorByCode(code).name),
    );
  }

  onRebalance(listener: (event: RebalanceEvent) => void, options: { manualRevoke: boolean }): void {
    this.listener = listener;
    this.manualRevoke = options.manualRevoke;
  }

  assignment(): TopicPartition[] {
    return this.member.ownedPartitions();
  }

  private revoked(partitions: readonly TopicPartitionRef[], hold: (() => () => void) | undefined): void {
    const list = partitions.map((p) => ({ topic: p.topic, partition: p.partition }));
    if (this.manualRevoke && hold) {
      const release = hold();
      let done = false;
      this.listener?.({
        type: 'revoked',
        partitions: list,
        release: () => {
          if (done) return;
          done = true;
          this.fetched.drop(list);
          release();
        },
      });
      return;
    }
    this.fetched.drop(list);
    this.listener?.({ type: 'revoked', partitions: list, release: () => undefined });
  }
}
