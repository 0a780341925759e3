// A consumer's fetcher (Java's Fetcher and FetchCollector, librdkafka's toppar fetch loop): the partitions it
// fetches and their positions, one fetch in flight per broker, leader changes followed through metadata, positions
// reset with auto.offset.reset (ListOffsets at the moment of the reset), and whole batches handed on (trimmed to
// the position), never one event per record. Both consumers own one: the assign-mode Consumer hands what it
// fetches to the application, a GroupConsumer buffers it for its poll loop and holds back buffered partitions.

import {
  brokerNodeId,
  Errors,
  type FetchPartitionResponse,
  type FetchRequest,
  type FetchResponse,
  type ListOffsetsResponse,
} from '../protocol/index.ts';
import type { SimNode, Timer } from '../sim/index.ts';
import { lastOffsetOf, type RecordBatch } from '../storage/index.ts';
import type { ClientFlavour, ConsumerConfig } from './config.ts';
import { countError, type ErrorCounts } from './error-counts.ts';
import { FetchSessionHandler } from './fetch-session-handler.ts';
import type { MetadataCache } from './metadata-cache.ts';
import type { TopicPartitionRef } from './topic-partition-key.ts';

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

/** What the fetcher needs of the consumer it fetches for. */
export interface FetcherClient {
  /** The client node the fetcher's requests, timers and trace events belong to. */
  readonly node: SimNode;
  readonly flavour: ClientFlavour;
  readonly config: ConsumerConfig;
  readonly metadata: MetadataCache;
  /** Errors seen so far, by name. */
  readonly errorCounts: ErrorCounts;
  /** Java's metadata.requestUpdate(): after a fetch error, or while a leader is unknown. */
  requestMetadataUpdate(): void;
  /** Whether a partition with a position may be fetched now (a group member holds back buffered ones). */
  fetchable(st: PartitionState): boolean;
  /** New records fetched for a partition (the position has moved past them). */
  onFetched(st: PartitionState, c: ConsumedBatches): void;
  /** A position was set by auto.offset.reset. */
  onReset(st: PartitionState): void;
}

export class Fetcher {
  /** Every auto.offset.reset this consumer did, in order. */
  readonly resets: OffsetReset[] = [];
  private partitions = new Map<string, PartitionState>();
  private fetching = new Set<number>();
  /** A Java consumer's fetch session with each broker it fetches from (KIP-227). */
  private sessions = new Map<number, FetchSessionHandler>();
  private fetchLoopScheduled = false;
  /** The one pending "pump again after retry.backoff.ms" (after an error, or while a leader is unknown). */
  private retryKick: Timer | undefined;

  constructor(private readonly client: FetcherClient) {}

  /** The partitions fetched (the consumer's assignment), by `topic-partition`. */
  get assignment(): ReadonlyMap<string, PartitionState> {
    return this.partitions;
  }

  /**
   * The client (re)started: nothing is in flight, and positions are volatile: they come again from
   * auto.offset.reset (or, in a group, the committed offsets).
   */
  restart(): void {
    this.fetching = new Set();
    this.sessions = new Map();
    this.fetchLoopScheduled = false;
    this.retryKick = undefined;
    for (const st of this.partitions.values()) {
      st.position = undefined;
      st.resetting = false;
    }
  }

  /** Replaces the partitions fetched (assign mode). Positions of kept partitions are kept. */
  assign(partitions: readonly TopicPartitionRef[]): void {
    const next = new Map<string, PartitionState>();
    for (const tp of partitions) {
      const key = `${tp.topic}-${tp.partition}`;
      next.set(key, this.partitions.get(key) ?? newPartition(tp, key, false));
    }
    this.partitions = next;
    this.kick();
  }

  /** Fetches nothing any more (a group member's restart: its partitions come from the next assignment). */
  clear(): void {
    this.partitions = new Map();
  }

  /**
   * Adds a partition without a position; `resetting` when the position comes from elsewhere first (a group
   * member's committed offset), so that auto.offset.reset waits.
   */
  add(tp: TopicPartitionRef, key: string, resetting: boolean): void {
    this.partitions.set(key, newPartition(tp, key, resetting));
  }

  remove(key: string): void {
    this.partitions.delete(key);
  }

  /** The partitions fetched, in the order they were added. */
  assignedPartitions(): TopicPartitionRef[] {
    return [...this.partitions.values()].map(({ topic, partition }) => ({ topic, partition }));
  }

  seek(key: string, offset: number): void {
    const st = this.partitions.get(key);
    if (!st) throw new Error(`seek: ${key} is not assigned`);
    st.position = offset;
    this.kick();
  }

  position(key: string): number | undefined {
    return this.partitions.get(key)?.position;
  }

  /** The lag the consumer knows of: high watermark − position, summed over its partitions. */
  get lag(): number {
    let lag = 0;
    for (const st of this.partitions.values())
      if (st.position !== undefined && st.highWatermark >= 0)
        lag += Math.max(0, st.highWatermark - st.position);
    return lag;
  }

  kick(): void {
    if (this.fetchLoopScheduled || !this.client.node.up) return;
    this.fetchLoopScheduled = true;
    this.client.node.schedule(
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
    const client = this.client;
    for (const st of this.partitions.values()) {
      const leader = client.metadata.leader(st.topic, st.partition)?.leader ?? -1;
      if (leader < 0) {
        needMetadata = true;
        continue;
      }
      if (st.position === undefined) {
        if (!st.resetting) this.resetOffset(st, leader);
        continue;
      }
      if (this.fetching.has(leader) || !client.fetchable(st)) continue;
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
      client.requestMetadataUpdate();
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
    this.retryKick = this.client.node.schedule(
      this.client.config['retry.backoff.ms'],
      () => this.kick(),
      label,
    );
  }

  private resetOffset(st: PartitionState, leader: number): void {
    const { node, config } = this.client;
    const reset = config['auto.offset.reset'];
    if (reset === 'none') {
      countError(this.client.errorCounts, 'NoOffsetForPartition');
      return;
    }
    st.resetting = true;
    const requestedAt = node.sim.now;
    node.request<ListOffsetsResponse>(
      brokerNodeId(leader),
      {
        type: 'ListOffsets',
        partitions: [{ topic: st.topic, partition: st.partition, timestamp: reset === 'earliest' ? -2 : -1 }],
      },
      (o) => {
        st.resetting = false;
        const r = o.ok ? o.response.partitions[0] : undefined;
        // The partition may have been unassigned (or reassigned) while ListOffsets was in flight.
        if (this.partitions.get(st.key) !== st) return;
        if (r && r.errorCode === 0) {
          st.position = r.offset;
          this.resets.push({
            topic: st.topic,
            partition: st.partition,
            strategy: reset,
            offset: r.offset,
            requestedAt,
            time: node.sim.now,
          });
          node.emit('consumer.reset', {
            topic: st.topic,
            partition: st.partition,
            strategy: reset,
            offset: r.offset,
          });
          this.client.onReset(st);
        } else {
          if (r) countError(this.client.errorCounts, r.errorCode);
          this.client.requestMetadataUpdate();
        }
        node.schedule(
          r && r.errorCode === 0 ? 0 : config['retry.backoff.ms'],
          () => this.kick(),
          'consumer.after-reset',
        );
      },
      config['request.timeout.ms'],
    );
  }

  /** A consumer's Fetch of `partitions` with this consumer's fetch.* settings. */
  private fetchRequest(partitions: FetchRequest['partitions']): FetchRequest {
    const config = this.client.config;
    return {
      type: 'Fetch',
      replicaId: -1,
      maxWaitMs: config['fetch.max.wait.ms'],
      minBytes: config['fetch.min.bytes'],
      maxBytes: config['fetch.max.bytes'],
      partitions,
    };
  }

  private fetchFrom(leader: number, parts: PartitionState[]): void {
    const { node, config } = this.client;
    if (this.client.flavour === 'java') return this.sessionFetchFrom(leader, parts);
    this.fetching.add(leader);
    const req = this.fetchRequest(
      parts.map((st) => ({
        topic: st.topic,
        partition: st.partition,
        fetchOffset: st.position!,
        partitionMaxBytes: config['max.partition.fetch.bytes'],
      })),
    );
    node.request<FetchResponse>(
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
            this.partitions.get(st.key) !== st ||
            st.position !== asked[i]!.fetchOffset
          )
            continue;
          if (this.takeAnswer(st, pr)) retry = true;
        }
        this.fetched(retry);
      },
      config['request.timeout.ms'] + config['fetch.max.wait.ms'],
    );
  }

  /**
   * A Java consumer's fetch in its incremental fetch session with `leader` (KIP-227): only partitions whose
   * position changed are named, and the broker answers only those with news, in its session's order.
   */
  private sessionFetchFrom(leader: number, parts: PartitionState[]): void {
    const { node, config } = this.client;
    this.fetching.add(leader);
    let session = this.sessions.get(leader);
    if (!session) this.sessions.set(leader, (session = new FetchSessionHandler()));
    const built = session.build(parts, config['max.partition.fetch.bytes']);
    const req = this.fetchRequest(built.partitions);
    req.sessionId = built.sessionId;
    req.sessionEpoch = built.sessionEpoch;
    if (built.forgotten) req.forgotten = built.forgotten;
    node.request<FetchResponse>(
      brokerNodeId(leader),
      req,
      (o) => {
        // A restart replaced the sessions: this answer belongs to the old one.
        if (this.sessions.get(leader) !== session) return;
        this.fetching.delete(leader);
        if (!o.ok) {
          session.handleError();
          return this.fetchFailed();
        }
        if (!session.handleResponse(o.response, built.full)) {
          node.emit('consumer.fetch-session-reset', { broker: leader, errorCode: o.response.errorCode });
          return this.fetched(false);
        }
        let retry = false;
        for (const pr of o.response.partitions) {
          // Skip partitions unassigned, reassigned or seeked since the session last got their position.
          const key = `${pr.topic}-${pr.partition}`;
          const st = session.partition(key);
          if (!st || this.partitions.get(key) !== st || st.position !== session.fetchOffset(key)) continue;
          if (this.takeAnswer(st, pr)) retry = true;
        }
        this.fetched(retry);
      },
      config['request.timeout.ms'] + config['fetch.max.wait.ms'],
    );
  }

  /** A fetch was lost: refresh metadata and pump again after the back-off. */
  private fetchFailed(): void {
    this.client.requestMetadataUpdate();
    this.kickAfterBackoff('consumer.fetch-retry');
  }

  /** One partition's answer: records handed on, or an error counted; true if the error wants a retry. */
  private takeAnswer(st: PartitionState, pr: FetchPartitionResponse): boolean {
    if (pr.errorCode !== 0) {
      countError(this.client.errorCounts, pr.errorCode);
      if (pr.errorCode === Errors.OFFSET_OUT_OF_RANGE.code) st.position = undefined;
      else if (pr.currentLeader) this.client.metadata.hint(pr.topic, pr.partition, pr.currentLeader);
      else this.client.metadata.invalidate(pr.topic, pr.partition);
      return true;
    }
    st.highWatermark = pr.highWatermark;
    this.hand(st, pr.batches, pr.highWatermark);
    return false;
  }

  /** A fetch's answer was taken: after an error pump after the back-off, else at once. */
  private fetched(retry: boolean): void {
    if (retry) {
      this.client.requestMetadataUpdate();
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
    this.client.onFetched(st, c);
  }
}

function newPartition(tp: TopicPartitionRef, key: string, resetting: boolean): PartitionState {
  return { topic: tp.topic, partition: tp.partition, key, position: undefined, highWatermark: -1, resetting };
}
