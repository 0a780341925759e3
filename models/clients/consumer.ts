// A consumer client in assign mode: it fetches from each partition's leader, one fetch in flight per broker as
// the Java fetcher does, follows leader changes through metadata, resets positions with auto.offset.reset
// (ListOffsets at the moment of the reset), and hands the application whole batches (trimmed to the position),
// never one event per record. GroupConsumer (group-consumer.ts) builds subscribe mode on the hooks below.

import {
  brokerNodeId,
  Errors,
  errorByCode,
  type FetchPartitionResponse,
  type FetchRequest,
  type FetchResponse,
  type ListOffsetsResponse,
} from '../protocol/index.ts';
import { type NodeId, SimNode, type Simulation, type Timer } from '../sim/index.ts';
import { lastOffsetOf, type RecordBatch } from '../storage/index.ts';
import {
  type ClientFlavour,
  type ConsumerConfig,
  type ConsumerConfigInput,
  consumerConfig,
} from './config.ts';
import { FetchSessionHandler } from './fetch-session-handler.ts';
import { MetadataCache } from './metadata-cache.ts';
import { MetadataRefresh } from './metadata-refresh.ts';

export interface TopicPartitionRef {
  topic: string;
  partition: number;
}

/** What the application receives: batches of one partition, and how many of their records are new. */
export interface ConsumedBatches {
  topic: string;
  partition: number;
  batches: readonly RecordBatch[];
  /** First offset delivered (the position before this delivery). */
  fromOffset: number;
  /** Records delivered (batches are trimmed to the position). */
  records: number;
  bytes: number;
  highWatermark: number;
}

export interface ConsumerOptions {
  flavour?: ClientFlavour;
  config?: ConsumerConfigInput;
  bootstrap: NodeId[];
}

export interface PartitionState {
  topic: string;
  partition: number;
  /** `topic-partition`, the assignment map's key (kept so the fetch path builds no strings). */
  readonly key: string;
  /** Next offset to fetch; undefined until reset. */
  position: number | undefined;
  highWatermark: number;
  /** A position lookup is in flight (ListOffsets, or a group member's OffsetFetch): do not reset now. */
  resetting: boolean;
}

/** An auto.offset.reset as it happened: which offset ListOffsets gave, and when. */
export interface OffsetReset {
  topic: string;
  partition: number;
  strategy: 'latest' | 'earliest';
  offset: number;
  /** When ListOffsets was sent, and when its answer came: the broker read the offset in between. */
  requestedAt: number;
  time: number;
}

export class Consumer extends SimNode {
  readonly flavour: ClientFlavour;
  readonly config: ConsumerConfig;
  readonly metadata: MetadataCache;
  recordsConsumed = 0;
  bytesConsumed = 0;
  readonly errorCounts: Partial<Record<string, number>> = {};
  /** Every auto.offset.reset this consumer did, in order. */
  readonly resets: OffsetReset[] = [];
  protected assignment = new Map<string, PartitionState>();
  private fetching = new Set<number>();
  /** A Java consumer's fetch session with each broker it fetches from (KIP-227). */
  private sessions = new Map<number, FetchSessionHandler>();
  private readonly metadataRefresh: MetadataRefresh;
  protected readonly listeners: ((c: ConsumedBatches) => void)[] = [];
  private fetchLoopScheduled = false;
  /** The next metadata answer is the start-up or periodic refresh's (see onMetadataUpdate). */
  private periodicRefreshDue = false;
  /** The one pending "pump again after retry.backoff.ms" (after an error, or while a leader is unknown). */
  private retryKick: Timer | undefined;

  constructor(sim: Simulation, id: NodeId, options: ConsumerOptions) {
    super(sim, id);
    this.flavour = options.flavour ?? 'java';
    this.config = consumerConfig(this.flavour, options.config);
    this.metadata = new MetadataCache(options.bootstrap, {
      initialMs: this.config['retry.backoff.ms'],
      maxMs: this.config['retry.backoff.max.ms'],
    });
    this.metadataRefresh = new MetadataRefresh(
      this,
      this.metadata,
      'consumer.metadata-backoff',
      () => this.config['request.timeout.ms'],
      (ok) => {
        if (ok) {
          const periodic = this.periodicRefreshDue;
          this.periodicRefreshDue = false;
          this.onMetadataUpdate(periodic);
        }
        this.kick();
      },
    );
  }

  protected override onStart(): void {
    this.fetching = new Set();
    this.sessions = new Map();
    this.metadataRefresh.reset();
    this.fetchLoopScheduled = false;
    this.retryKick = undefined;
    // Positions are volatile: after a restart they come from auto.offset.reset (or committed offsets, with groups).
    for (const st of this.assignment.values()) {
      st.position = undefined;
      st.resetting = false;
    }
    this.periodicRefreshDue = true;
    this.refreshMetadata();
    // The refresh timer counts from the client's start (librdkafka arms rk_metadata_refresh_tmr when the client
    // is created; Java's metadata.max.age.ms counts from the last update, which here is the start).
    this.every(
      this.config['metadata.max.age.ms'],
      () => {
        this.metadata.expire();
        this.periodicRefreshDue = true;
        this.requestMetadataUpdate();
      },
      'consumer.metadata-max-age',
    );
  }

  onRecords(listener: (c: ConsumedBatches) => void): void {
    this.listeners.push(listener);
  }

  /** Replaces the assignment (assign mode). Positions of kept partitions are kept. */
  assign(partitions: readonly TopicPartitionRef[]): void {
    const next = new Map<string, PartitionState>();
    for (const tp of partitions) {
      const key = `${tp.topic}-${tp.partition}`;
      next.set(
        key,
        this.assignment.get(key) ?? {
          topic: tp.topic,
          partition: tp.partition,
          key,
          position: undefined,
          highWatermark: -1,
          resetting: false,
        },
      );
    }
    this.assignment = next;
    this.kick();
  }

  assignedPartitions(): TopicPartitionRef[] {
    return [...this.assignment.values()].map(({ topic, partition }) => ({ topic, partition }));
  }

  seek(tp: TopicPartitionRef, offset: number): void {
    const st = this.assignment.get(`${tp.topic}-${tp.partition}`);
    if (!st) throw new Error(`seek: ${tp.topic}-${tp.partition} is not assigned`);
    st.position = offset;
    this.kick();
  }

  position(tp: TopicPartitionRef): number | undefined {
    return this.assignment.get(`${tp.topic}-${tp.partition}`)?.position;
  }

  /** The lag the consumer knows of: high watermark − position, summed over its partitions. */
  get lag(): number {
    let lag = 0;
    for (const st of this.assignment.values())
      if (st.position !== undefined && st.highWatermark >= 0)
        lag += Math.max(0, st.highWatermark - st.position);
    return lag;
  }

  /** Asks for metadata at once, past the backoff (Java's requestUpdateForNewTopics: new topics are wanted). */
  refreshMetadata(): void {
    this.metadata.requestUpdateForNewTopics();
    this.requestMetadataUpdate();
  }

  /**
   * Java's metadata.requestUpdate() after a fetch error or while a leader is unknown: the request goes when the
   * refresh backoff allows (MetadataCache.timeToAllowUpdate), one at a time, not back to back.
   */
  protected requestMetadataUpdate(): void {
    this.metadataRefresh.request();
  }

  /**
   * Called after every successful metadata refresh; `periodic` when it answers the start-up or the periodic
   * refresh (librdkafka's cgrp_update requests) rather than a leader query after an error.
   */
  protected onMetadataUpdate(_periodic: boolean): void {}

  /** Whether a partition with a position may be fetched now (a group member holds back buffered ones). */
  protected fetchable(_st: PartitionState): boolean {
    return true;
  }

  /** New records fetched for a partition (the position has moved past them). Assign mode hands them on. */
  protected onFetched(_st: PartitionState, c: ConsumedBatches): void {
    this.recordsConsumed += c.records;
    this.bytesConsumed += c.bytes;
    for (const l of this.listeners) l(c);
  }

  /** A position was set by auto.offset.reset. */
  protected onReset(_st: PartitionState): void {}

  protected kick(): void {
    if (this.fetchLoopScheduled || !this.up) return;
    this.fetchLoopScheduled = true;
    this.schedule(
      0,
      () => {
        this.fetchLoopScheduled = false;
        this.pump();
      },
      'consumer.pump',
    );
  }

  private pump(): void {
    // Partitions to fetch, grouped by leader in the order leaders first appear (the order requests go out).
    let leaders: number[] | undefined;
    let groups: PartitionState[][] | undefined;
    let needMetadata = false;
    for (const st of this.assignment.values()) {
      const leader = this.metadata.leader(st.topic, st.partition)?.leader ?? -1;
      if (leader < 0) {
        needMetadata = true;
        continue;
      }
      if (st.position === undefined) {
        if (!st.resetting) this.resetOffset(st, leader);
        continue;
      }
      if (this.fetching.has(leader) || !this.fetchable(st)) continue;
      leaders ??= [];
      groups ??= [];
      const i = leaders.indexOf(leader);
      if (i >= 0) groups[i]!.push(st);
      else {
        leaders.push(leader);
        groups.push([st]);
      }
    }
    if (leaders && groups)
      for (let i = 0; i < leaders.length; i++)
        if (!this.fetching.has(leaders[i]!)) this.fetchFrom(leaders[i]!, groups[i]!);
    if (needMetadata) {
      this.requestMetadataUpdate();
      this.kickAfterBackoff('consumer.wait-leader');
    }
  }

  /**
   * Pumps again after retry.backoff.ms. One such timer is enough: every pump looks at every partition, and one
   * that still finds an error or an unknown leader sets the next. (A timer per pump multiplied: each response
   * from another broker during a leader move added one, and each of them, firing, added another.)
   */
  private kickAfterBackoff(label: string): void {
    if (this.retryKick?.pending) return;
    this.retryKick = this.schedule(this.config['retry.backoff.ms'], () => this.kick(), label);
  }

  protected resetOffset(st: PartitionState, leader: number): void {
    const reset = this.config['auto.offset.reset'];
    if (reset === 'none') {
      this.errorCounts.NoOffsetForPartition = (this.errorCounts.NoOffsetForPartition ?? 0) + 1;
      return;
    }
    st.resetting = true;
    const requestedAt = this.sim.now;
    this.request<ListOffsetsResponse>(
      brokerNodeId(leader),
      {
        type: 'ListOffsets',
        partitions: [{ topic: st.topic, partition: st.partition, timestamp: reset === 'earliest' ? -2 : -1 }],
      },
      (o) => {
        st.resetting = false;
        const r = o.ok ? o.response.partitions[0] : undefined;
        // The partition may have been unassigned (or reassigned) while ListOffsets was in flight.
        if (this.assignment.get(st.key) !== st) return;
        if (r && r.errorCode === 0) {
          st.position = r.offset;
          this.resets.push({
            topic: st.topic,
            partition: st.partition,
            strategy: reset,
            offset: r.offset,
            requestedAt,
            time: this.sim.now,
          });
          this.emit('consumer.reset', {
            topic: st.topic,
            partition: st.partition,
            strategy: reset,
            offset: r.offset,
          });
          this.onReset(st);
        } else {
          if (r) this.countError(r.errorCode);
          this.requestMetadataUpdate();
        }
        this.schedule(
          r && r.errorCode === 0 ? 0 : this.config['retry.backoff.ms'],
          () => this.kick(),
          'consumer.after-reset',
        );
      },
      this.config['request.timeout.ms'],
    );
  }

  protected countError(code: number): void {
    const name = errorByCode(code).name;
    this.errorCounts[name] = (this.errorCounts[name] ?? 0) + 1;
  }

  /** A consumer's Fetch of `partitions` with this consumer's fetch.* settings. */
  private fetchRequest(partitions: FetchRequest['partitions']): FetchRequest {
    return {
      type: 'Fetch',
      replicaId: -1,
      maxWaitMs: this.config['fetch.max.wait.ms'],
      minBytes: this.config['fetch.min.bytes'],
      maxBytes: this.config['fetch.max.bytes'],
      partitions,
    };
  }

  private fetchFrom(leader: number, parts: PartitionState[]): void {
    if (this.flavour === 'java') return this.sessionFetchFrom(leader, parts);
    this.fetching.add(leader);
    const req = this.fetchRequest(
      parts.map((st) => ({
        topic: st.topic,
        partition: st.partition,
        fetchOffset: st.position!,
        partitionMaxBytes: this.config['max.partition.fetch.bytes'],
      })),
    );
    this.request<FetchResponse>(
      brokerNodeId(leader),
      req,
      (o) => {
        this.fetching.delete(leader);
        if (!o.ok) return this.fetchFailed();
        let retry = false;
        const answered = o.response.partitions;
        const asked = req.partitions;
        for (let i = 0; i < answered.length; i++) {
          const pr = answered[i]!;
          // The broker answers in request order. Skip partitions unassigned, reassigned or seeked meanwhile.
          const st = parts[i];
          if (
            !st ||
            st.partition !== pr.partition ||
            st.topic !== pr.topic ||
            this.assignment.get(st.key) !== st ||
            st.position !== asked[i]!.fetchOffset
          )
            continue;
          if (this.takeAnswer(st, pr)) retry = true;
        }
        this.fetched(retry);
      },
      this.config['request.timeout.ms'] + this.config['fetch.max.wait.ms'],
    );
  }

  /**
   * A Java consumer's fetch in its incremental fetch session with `leader` (KIP-227): only partitions whose
   * position changed are named, and the broker answers only those with news, in its session's order.
   */
  private sessionFetchFrom(leader: number, parts: PartitionState[]): void {
    this.fetching.add(leader);
    let session = this.sessions.get(leader);
    if (!session) this.sessions.set(leader, (session = new FetchSessionHandler()));
    const built = session.build(parts, this.config['max.partition.fetch.bytes']);
    const req = this.fetchRequest(built.partitions);
    req.sessionId = built.sessionId;
    req.sessionEpoch = built.sessionEpoch;
    if (built.forgotten) req.forgotten = built.forgotten;
    this.request<FetchResponse>(
      brokerNodeId(leader),
      req,
      (o) => {
        // A restart (onStart) replaced the sessions: this answer belongs to the old one.
        if (this.sessions.get(leader) !== session) return;
        this.fetching.delete(leader);
        if (!o.ok) {
          session.handleError();
          return this.fetchFailed();
        }
        if (!session.handleResponse(o.response, built.full)) {
          this.emit('consumer.fetch-session-reset', { broker: leader, errorCode: o.response.errorCode });
          return this.fetched(false);
        }
        let retry = false;
        for (const pr of o.response.partitions) {
          // Skip partitions unassigned, reassigned or seeked since the session last got their position.
          const key = `${pr.topic}-${pr.partition}`;
          const st = session.partition(key);
          if (!st || this.assignment.get(key) !== st || st.position !== session.fetchOffset(key)) continue;
          if (this.takeAnswer(st, pr)) retry = true;
        }
        this.fetched(retry);
      },
      this.config['request.timeout.ms'] + this.config['fetch.max.wait.ms'],
    );
  }

  /** A fetch was lost: refresh metadata and pump again after the back-off. */
  private fetchFailed(): void {
    this.requestMetadataUpdate();
    this.kickAfterBackoff('consumer.fetch-retry');
  }

  /** One partition's answer: records handed on, or an error counted; true if the error wants a retry. */
  private takeAnswer(st: PartitionState, pr: FetchPartitionResponse): boolean {
    if (pr.errorCode !== 0) {
      this.countError(pr.errorCode);
      if (pr.errorCode === Errors.OFFSET_OUT_OF_RANGE.code) st.position = undefined;
      else if (pr.currentLeader) this.metadata.hint(pr.topic, pr.partition, pr.currentLeader);
      else this.metadata.invalidate(pr.topic, pr.partition);
      return true;
    }
    st.highWatermark = pr.highWatermark;
    this.hand(st, pr.batches, pr.highWatermark);
    return false;
  }

  /** A fetch's answer was taken: after an error pump after the back-off, else at once. */
  private fetched(retry: boolean): void {
    if (retry) {
      this.requestMetadataUpdate();
      this.kickAfterBackoff('consumer.fetch-retry');
    } else if (!this.fetchLoopScheduled) {
      // Fetch again from this response's event rather than a new one: the fetch loop is the hot path.
      this.pump();
    }
  }

  private hand(st: PartitionState, batches: readonly RecordBatch[], highWatermark: number): void {
    if (batches.length === 0) return;
    const from = st.position!;
    let records = 0;
    let bytes = 0;
    for (let i = 0; i < batches.length; i++) {
      const b = batches[i]!;
      const skip = Math.max(0, from - b.baseOffset);
      const n = b.count - skip;
      if (n <= 0) continue;
      records += n;
      bytes += b.bytes * (n / b.count);
    }
    const last = batches[batches.length - 1]!;
    st.position = Math.max(from, lastOffsetOf(last) + 1);
    if (records === 0) return;
    const c: ConsumedBatches = {
      topic: st.topic,
      partition: st.partition,
      batches,
      fromOffset: from,
      records,
      bytes,
      highWatermark,
    };
    this.onFetched(st, c);
  }
}
