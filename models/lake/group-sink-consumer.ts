// A sink worker's consumer on the real group protocol: models/clients' GroupConsumer (librdkafka flavour,
// subscribe mode, coordinator on the brokers) seen through the SinkConsumer interface. Records the member hands
// over go into a fetch queue the worker polls from; librdkafka's rebalance_cb becomes a held revocation (the
// member does not rejoin until the worker releases it), and without one the revoked partitions' queued records
// are dropped at once, as librdkafka purges its fetch queue on unassign.
import type { NodeId, Simulation } from '../../src/sim/index.ts';
import { GroupConsumer, type GroupConsumerConfigInput, type TopicPartitionRef } from '../clients/index.ts';
import type { TopicPartition } from '../group/assignors/index.ts';
import { errorByCode } from '../protocol/index.ts';
import type { CommitOffset, MessageSlice, RebalanceEvent, SinkConsumer } from './sink-consumer.ts';

export interface GroupSinkConsumerOptions {
  groupId: string;
  topic: string;
  bootstrap: NodeId[];
  /** librdkafka settings (the service's: enable.auto.commit=false, auto.offset.reset=earliest, ...). */
  config?: GroupConsumerConfigInput;
}

const keyOf = (tp: TopicPartitionRef) => `${tp.topic}\u0000${tp.partition}`;

export class GroupSinkConsumer implements SinkConsumer {
  readonly member: GroupConsumer;
  private queue: MessageSlice[] = [];
  private head = 0;
  private queuedRecords = 0;
  private readonly readable: (() => void)[] = [];
  private listener: ((e: RebalanceEvent) => void) | undefined;
  private manualRevoke = false;

  constructor(
    sim: Simulation,
    readonly clientId: NodeId,
    options: GroupSinkConsumerOptions,
  ) {
    this.member = new GroupConsumer(sim, clientId, {
      flavour: 'librdkafka',
      groupId: options.groupId,
      topics: [options.topic],
      bootstrap: options.bootstrap,
      config: { 'client.id': clientId, ...options.config },
      listener: {
        onPartitionsRevoked: (partitions, ctl) => this.revoked(partitions, () => ctl.hold()),
        onPartitionsLost: (partitions) => this.revoked(partitions, undefined),
        onPartitionsAssigned: () =>
          this.listener?.({ type: 'assigned', partitions: this.member.ownedPartitions() }),
      },
    });
    this.member.onRecords((c) => {
      let added = 0;
      for (const b of c.batches) {
        const first = Math.max(0, c.fromOffset - b.baseOffset);
        const count = Math.min(b.count - first, c.fromOffset + c.records - (b.baseOffset + first));
        if (count <= 0) continue;
        this.queue.push({ topic: c.topic, partition: c.partition, batch: b, first, count });
        added += count;
      }
      if (added === 0) return;
      const wasEmpty = this.queuedRecords === 0;
      this.queuedRecords += added;
      if (wasEmpty) for (const l of this.readable) l();
    });
  }

  start(): void {
    if (!this.member.up) this.member.start();
  }

  close(): void {
    this.dropQueue(undefined);
    this.member.close();
  }

  crash(): void {
    this.dropQueue(undefined);
    this.member.crash();
  }

  get queued(): number {
    return this.queuedRecords;
  }

  onReadable(listener: () => void): void {
    this.readable.push(listener);
  }

  poll(max: number): MessageSlice[] {
    const out: MessageSlice[] = [];
    let left = max;
    while (left > 0 && this.head < this.queue.length) {
      const s = this.queue[this.head]!;
      if (s.count <= left) {
        out.push(s);
        left -= s.count;
        this.head++;
      } else {
        out.push({ ...s, count: left });
        this.queue[this.head] = { ...s, first: s.first + left, count: s.count - left };
        left = 0;
      }
    }
    this.queuedRecords -= max - left;
    if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
    return out;
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
          this.dropQueue(list);
          release();
        },
      });
      return;
    }
    this.dropQueue(list);
    this.listener?.({ type: 'revoked', partitions: list, release: () => undefined });
  }

  /** Drops queued records of `partitions` (all when undefined). */
  private dropQueue(partitions: readonly TopicPartitionRef[] | undefined): void {
    if (!partitions) {
      this.queue = [];
      this.head = 0;
      this.queuedRecords = 0;
      return;
    }
    const gone = new Set(partitions.map(keyOf));
    const kept: MessageSlice[] = [];
    let records = 0;
    for (let i = this.head; i < this.queue.length; i++) {
      const s = this.queue[i]!;
      if (gone.has(keyOf(s))) continue;
      kept.push(s);
      records += s.count;
    }
    this.queue = kept;
    this.head = 0;
    this.queuedRecords = records;
  }
}
