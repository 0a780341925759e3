// A producer client, Java or librdkafka flavoured: partitions records (explicit, murmur2 or CRC32 on keys,
// sticky for keyless), accumulates them into batches (batch.size, linger.ms), sends one Produce request per
// leader broker with up to max.in.flight requests outstanding, retries with exponential backoff, refreshes
// metadata on NOT_LEADER_OR_FOLLOWER (and follows KIP-951 leader hints), expires batches after
// delivery.timeout.ms, and with idempotence numbers batches so that a retry is never appended twice.
//
// Records are appended by function calls, not events: a workload can add thousands of records in one event, and
// the producer only schedules events to send. Record identity is kept as runs of the producer's record indices.

import {
  brokerIdOf,
  brokerNodeId,
  type ErrorName,
  Errors,
  errorByCode,
  type MetadataResponse,
  type ProducePartitionResponse,
  type ProduceRequest,
  type ProduceResponse,
} from '../protocol/index.ts';
import { type NodeId, SimNode, type Simulation, type Timer } from '../sim/index.ts';
import type { ProducerBatchData, RecordData, RecordRun } from '../storage/index.ts';
import {
  type ClientFlavour,
  type ProducerConfig,
  type ProducerConfigInput,
  producerConfig,
} from './config.ts';
import { MetadataCache } from './metadata-cache.ts';
import { MetadataRefresh } from './metadata-refresh.ts';
import { javaKeyPartition, librdkafkaConsistentPartition, nextStickyPartition } from './partitioners.ts';

/** Record batch header size in bytes (Kafka's v2 RecordBatch header). */
const BATCH_OVERHEAD = 61;
/** Approximate per-record framing (length, attributes, deltas, header count varints). */
const RECORD_OVERHEAD = 8;
/** Java's max.request.size. */
const MAX_REQUEST_SIZE = 1_048_576;

const utf8 = new TextEncoder();

export interface SendRecord {
  topic: string;
  partition?: number;
  key?: string | null;
  value?: string | null;
  /** Size of the value in bytes when `value` is not given. */
  valueBytes?: number;
}

export interface DeliveryResult {
  topic: string;
  partition: number;
  /** Offset of the batch's first record, -1 for acks=0 or a failure. */
  baseOffset: number;
  count: number;
  runs: readonly RecordRun[];
  /** Virtual time the result came back. */
  time: number;
  error?: ErrorName | 'DELIVERY_TIMEOUT';
}

export type ProducerEvent =
  | {
      type: 'retry';
      clientId: string;
      correlationId: number;
      topic: string;
      partition: number;
      attemptsLeft: number;
      error: ErrorName;
      invalidMetadata: boolean;
      errorMessage: string | undefined;
    }
  | { type: 'metadata'; brokerNode: NodeId; topics: number }
  | { type: 'failed'; topic: string; partition: number; count: number; error: string };

class Batch {
  count = 0;
  bytes = BATCH_OVERHEAD;
  readonly runs: RecordRun[] = [];
  records: RecordData[] | undefined;
  callbacks: ((r: DeliveryResult) => void)[] | undefined;
  attempts = 0;
  baseSequence = -1;
  retryAt = 0;
  /** The partition's leader epoch when the batch was last sent (KIP-951: a newer one ends the backoff). */
  sentLeaderEpoch = -1;
  inFlight = false;
  closed = false;
  wire: ProducerBatchData | undefined;
  constructor(
    readonly topic: string,
    readonly partition: number,
    /** `topic-partition`, the deque's key. */
    readonly key: string,
    readonly createdAt: number,
  ) {}
}

export interface ProducerOptions {
  flavour?: ClientFlavour;
  config?: ProducerConfigInput;
  /** Broker node ids to bootstrap from. */
  bootstrap: NodeId[];
  /** Carry record keys and values in batches (needed by consumers that read content). Default true. */
  keepContent?: boolean;
}

/**
 * A batch's answer in a Produce response. The broker answers in request order, so it is normally at the
 * batch's own index; a search covers a response that is not.
 */
function answerFor(
  answered: readonly ProducePartitionResponse[],
  i: number,
  b: Batch,
): ProducePartitionResponse | undefined {
  const at = answered[i];
  if (at && at.partition === b.partition && at.topic === b.topic) return at;
  return answered.find((p) => p.partition === b.partition && p.topic === b.topic);
}

/** Producer ids are handed out per simulation (as a cluster's InitProducerId would), never across runs. */
const nextProducerIds = new WeakMap<Simulation, number>();
export function nextProducerId(sim: Simulation): number {
  const id = nextProducerIds.get(sim) ?? 1000;
  nextProducerIds.set(sim, id + 1);
  return id;
}

export class Producer extends SimNode {
  readonly flavour: ClientFlavour;
  readonly config: ProducerConfig;
  readonly keepContent: boolean;
  readonly metadata: MetadataCache;
  producerId = -1;
  producerEpoch = 0;
  /** Records handed to send() so far (the next record index). */
  recordsSent = 0;
  recordsAcked = 0;
  recordsFailed = 0;
  readonly errorCounts: Partial<Record<string, number>> = {};
  private readonly deques = new Map<string, Batch[]>();
  /** Each deque's rank: the order deques were made, which is the order the sender visits them. */
  private readonly dequeRanks = new Map<Batch[], number>();
  /**
   * The deques that may hold batches, by rank (Java's RecordAccumulator.ready looks only at partitions with
   * batches): the sender visits these, not every partition ever written to. A deque enters when it gets a
   * batch while empty and leaves when a pass finds it empty.
   */
  private active: Batch[][] = [];
  private readonly activeSet = new Set<Batch[]>();
  /**
   * The index of the deque each sender pass under way is at (a pass may start inside another, from a callback):
   * a deque that becomes active before that index waits for the next pass, as with a Map being iterated.
   */
  private readonly drainCursors: number[] = [];
  /** `topic-partition` strings, built once per partition (the send path looks deques up on every append). */
  private readonly tpKeys = new Map<string, string[]>();
  private readonly waitingForMetadata: {
    rec: SendRecord;
    index: number;
    cb?: (r: DeliveryResult) => void;
  }[] = [];
  private readonly inFlightPerBroker = new Map<number, number>();
  /** Brokers this producer has a connection to (it sent them a request). */
  private readonly connected = new Set<number>();
  private readonly sequences = new Map<string, number>();
  private readonly sticky = new Map<string, { partition: number; bytes: number; since: number }>();
  private readonly listeners: ((r: DeliveryResult) => void)[] = [];
  private readonly eventListeners: ((e: ProducerEvent) => void)[] = [];
  private drainTimer: Timer | undefined;
  private readonly metadataRefresh: MetadataRefresh;
  private correlationId = 0;
  private closing = false;

  constructor(sim: Simulation, id: NodeId, options: ProducerOptions) {
    super(sim, id);
    this.flavour = options.flavour ?? 'java';
    this.config = producerConfig(this.flavour, options.config);
    this.keepContent = options.keepContent ?? true;
    this.metadata = new MetadataCache(options.bootstrap, {
      initialMs: this.config['retry.backoff.ms'],
      maxMs: this.config['retry.backoff.max.ms'],
    });
    this.metadataRefresh = new MetadataRefresh(
      this,
      this.metadata,
      'producer.metadata-backoff',
      () => this.config['request.timeout.ms'],
      (ok, node, response) => {
        if (ok) this.metadataAnswered(node, response!);
        else {
          const id = brokerIdOf(node);
          if (id !== undefined) this.connected.delete(id);
        }
      },
      () => this.leastLoadedNode(),
    );
  }

  /**
   * Java's NetworkClient.leastLoadedNode, where a metadata request goes: from a random starting point, the first
   * connected broker with nothing in flight, else the connected one with the fewest requests in flight, else one
   * it can connect to. On a busy connection the request waits behind the produce requests ahead of it (a broker
   * handles one request per connection at a time), which is how long a producer takes to learn of a move.
   */
  private leastLoadedNode(): NodeId {
    const ids = this.metadata.brokers();
    if (ids.length === 0) return this.metadata.pickNode(this.random('metadata'));
    const offset = this.random('metadata').int(0, ids.length - 1);
    let ready: number | undefined;
    let readyInFlight = Number.POSITIVE_INFINITY;
    let other: number | undefined;
    for (let i = 0; i < ids.length; i++) {
      const id = ids[(offset + i) % ids.length]!;
      const inFlight = this.inFlightPerBroker.get(id) ?? 0;
      if (this.connected.has(id)) {
        if (inFlight === 0) return brokerNodeId(id);
        if (inFlight < readyInFlight) {
          ready = id;
          readyInFlight = inFlight;
        }
      } else other ??= id;
    }
    const id = ready ?? other!;
    this.connected.add(id);
    return brokerNodeId(id);
  }

  protected override onStart(): void {
    // A request or backoff timer of the previous incarnation will never answer.
    this.metadataRefresh.reset();
    this.connected.clear();
    if (this.config['enable.idempotence']) {
      this.producerId = nextProducerId(this.sim);
      this.producerEpoch = 0;
    }
    this.refreshMetadata();
    this.every(
      this.config['metadata.max.age.ms'],
      () => {
        this.metadata.expire();
        this.requestMetadataUpdate();
      },
      'producer.metadata-max-age',
    );
  }

  /** Called with every batch result (success or failure). */
  onDelivery(listener: (r: DeliveryResult) => void): void {
    this.listeners.push(listener);
  }

  /** Called with retries, metadata refreshes and failures (what the real client logs). */
  onEvent(listener: (e: ProducerEvent) => void): void {
    this.eventListeners.push(listener);
  }

  private emitEvent(e: ProducerEvent): void {
    for (const l of this.eventListeners) l(e);
  }

  /** Records accepted but not yet acknowledged or failed. */
  get pendingRecords(): number {
    return this.recordsSent - this.recordsAcked - this.recordsFailed;
  }

  /** Sends one record; returns its record index. */
  send(rec: SendRecord, cb?: (r: DeliveryResult) => void): number {
    const index = this.recordsSent++;
    if (!this.metadata.hasTopic(rec.topic)) {
      this.waitingForMetadata.push(cb ? { rec, index, cb } : { rec, index });
      this.refreshMetadata();
      return index;
    }
    this.append(rec, index, 1, cb);
    return index;
  }

  /** Sends `count` keyless records of `valueBytes` each to `topic` (as a perf test does); returns the first index. */
  sendMany(topic: string, count: number, valueBytes: number, partition?: number): number {
    const first = this.recordsSent;
    if (!this.metadata.hasTopic(topic)) {
      for (let i = 0; i < count; i++)
        this.send({ topic, valueBytes, ...(partition !== undefined ? { partition } : {}) });
      return first;
    }
    let left = count;
    while (left > 0) {
      const p = partition ?? this.stickyPartition(topic);
      const batch = this.openBatch(topic, p);
      const recordBytes = valueBytes + RECORD_OVERHEAD;
      const room = Math.max(1, Math.floor((this.config['batch.size'] - batch.bytes) / recordBytes));
      const n = Math.min(left, batch.count === 0 ? Math.max(1, room) : room);
      if (batch.count > 0 && batch.bytes + recordBytes > this.config['batch.size']) {
        batch.closed = true;
        continue;
      }
      this.addRun(batch, this.recordsSent, n, n * recordBytes);
      this.recordsSent += n;
      left -= n;
      if (partition === undefined) this.noteSticky(topic, n * recordBytes);
      if (batch.bytes + recordBytes > this.config['batch.size']) batch.closed = true;
    }
    // The records of one call arrive together (a workload's burst), so the sender pass that Java's
    // accumulator.append wakes (Sender.wakeup) runs in this event: a separate event would find the same batches.
    this.drainNow();
    return first;
  }

  private choosePartition(rec: SendRecord): number {
    const n = this.metadata.partitionCount(rec.topic)!;
    if (rec.partition !== undefined) return rec.partition;
    if (rec.key !== undefined && rec.key !== null) {
      const bytes = utf8.encode(rec.key);
      return this.config.partitioner === 'murmur2_random'
        ? javaKeyPartition(bytes, n)
        : librdkafkaConsistentPartition(bytes, n);
    }
    return this.stickyPartition(rec.topic);
  }

  /** KIP-794 / librdkafka sticky partitioning for keyless records. */
  private stickyPartition(topic: string): number {
    const s = this.sticky.get(topic);
    const lingerSwitch = this.config['sticky.partitioning.linger.ms'];
    const expired =
      !s ||
      (lingerSwitch > 0 ? this.sim.now - s.since >= lingerSwitch : s.bytes >= this.config['batch.size']) ||
      (this.metadata.leader(topic, s.partition)?.leader ?? -1) < 0;
    if (!expired) return s.partition;
    const available = this.metadata.availablePartitions(topic);
    const all = this.metadata.partitionCount(topic) ?? 1;
    const partition = nextStickyPartition(available, all, s?.partition, this.random('partitioner').next());
    if (s) {
      s.partition = partition;
      s.bytes = 0;
      s.since = this.sim.now;
    } else this.sticky.set(topic, { partition, bytes: 0, since: this.sim.now });
    return partition;
  }

  private noteSticky(topic: string, bytes: number): void {
    const s = this.sticky.get(topic);
    if (s) s.bytes += bytes;
  }

  private append(rec: SendRecord, index: number, count: number, cb?: (r: DeliveryResult) => void): void {
    const partition = this.choosePartition(rec);
    const n = this.metadata.partitionCount(rec.topic) ?? 0;
    if (partition < 0 || partition >= n) {
      this.recordsFailed += count;
      const result: DeliveryResult = {
        topic: rec.topic,
        partition,
        baseOffset: -1,
        count,
        runs: [{ index, count, time: this.sim.now }],
        time: this.sim.now,
        error: 'UNKNOWN_TOPIC_OR_PARTITION',
      };
      cb?.(result);
      for (const l of this.listeners) l(result);
      return;
    }
    // Sizes only: byteLength counts UTF-8 bytes without building them (a third of workflow B's producer time).
    const keyBytes = rec.key ? Buffer.byteLength(rec.key, 'utf8') : 0;
    const valueBytes = rec.value != null ? Buffer.byteLength(rec.value, 'utf8') : (rec.valueBytes ?? 0);
    const size = keyBytes + valueBytes + RECORD_OVERHEAD;
    let batch = this.openBatch(rec.topic, partition);
    if (batch.count > 0 && batch.bytes + size > this.config['batch.size']) {
      batch.closed = true;
      batch = this.openBatch(rec.topic, partition);
    }
    this.addRun(batch, index, 1, size);
    if (this.keepContent && (rec.key != null || rec.value != null)) {
      batch.records ??= [];
      // Batches either carry content for all records or none.
      while (batch.records.length < batch.count - 1) batch.records.push({ key: null, value: null });
      batch.records.push({ key: rec.key ?? null, value: rec.value ?? null });
    }
    if (cb) (batch.callbacks ??= []).push(cb);
    if (rec.partition === undefined && (rec.key === undefined || rec.key === null))
      this.noteSticky(rec.topic, size);
    if (batch.bytes >= this.config['batch.size']) batch.closed = true;
    this.wakeSender();
  }

  private tpKey(topic: string, partition: number): string {
    let keys = this.tpKeys.get(topic);
    if (!keys) this.tpKeys.set(topic, (keys = []));
    return (keys[partition] ??= `${topic}-${partition}`);
  }

  private openBatch(topic: string, partition: number): Batch {
    const key = this.tpKey(topic, partition);
    let deque = this.deques.get(key);
    if (!deque) {
      this.deques.set(key, (deque = []));
      this.dequeRanks.set(deque, this.dequeRanks.size);
    }
    if (!this.activeSet.has(deque)) this.activate(deque);
    const last = deque[deque.length - 1];
    if (last && !last.closed && !last.inFlight && last.attempts === 0) return last;
    const b = new Batch(topic, partition, key, this.sim.now);
    deque.push(b);
    return b;
  }

  private compactActive(): void {
    let j = 0;
    const list = this.active;
    for (let i = 0; i < list.length; i++) {
      const d = list[i]!;
      if (d.length > 0) list[j++] = d;
      else this.activeSet.delete(d);
    }
    list.length = j;
  }

  private activate(deque: Batch[]): void {
    const rank = this.dequeRanks.get(deque)!;
    const list = this.active;
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.dequeRanks.get(list[mid]!)! < rank) lo = mid + 1;
      else hi = mid;
    }
    list.splice(lo, 0, deque);
    this.activeSet.add(deque);
    const cursors = this.drainCursors;
    for (let i = 0; i < cursors.length; i++) if (lo <= cursors[i]!) cursors[i]!++;
  }

  private addRun(batch: Batch, index: number, count: number, bytes: number): void {
    const last = batch.runs[batch.runs.length - 1];
    if (last && last.index + last.count === index && last.time === this.sim.now) {
      batch.runs[batch.runs.length - 1] = { index: last.index, count: last.count + count, time: last.time };
    } else {
      batch.runs.push({ index, count, time: this.sim.now });
    }
    batch.count += count;
    batch.bytes += bytes;
  }

  // ---- metadata --------------------------------------------------------------------------------------------

  /** Asks for metadata at once, past the backoff (Java's requestUpdateForNewTopics: a topic not known yet). */
  refreshMetadata(): void {
    this.metadata.requestUpdateForNewTopics();
    this.requestMetadataUpdate();
  }

  /**
   * Java's metadata.requestUpdate() after an error or an unknown leader: the request goes when the refresh
   * backoff allows (MetadataCache.timeToAllowUpdate), one at a time, so a producer waiting out a leader election
   * asks every 100 ms, then less often, instead of back to back.
   */
  private requestMetadataUpdate(): void {
    this.metadataRefresh.request();
  }

  /** An answer the cache has taken: records that waited for their topic go on. */
  private metadataAnswered(node: NodeId, response: MetadataResponse): void {
    this.emitEvent({ type: 'metadata', brokerNode: node, topics: response.topics.length });
    const waiting = this.waitingForMetadata.splice(0);
    for (const w of waiting) {
      if (this.metadata.hasTopic(w.rec.topic)) this.append(w.rec, w.index, 1, w.cb);
      else this.waitingForMetadata.push(w);
    }
    if (this.waitingForMetadata.length > 0) {
      this.schedule(this.config['retry.backoff.ms'], () => this.refreshMetadata(), 'producer.metadata-retry');
    }
    this.wakeSender();
  }

  // ---- sender ----------------------------------------------------------------------------------------------

  /** Schedules a sender pass at the current time (at most one pending). */
  private wakeSender(at = this.sim.now): void {
    if (this.drainTimer?.pending && this.drainTimer.time <= at) return;
    this.drainTimer?.cancel();
    this.drainTimer = this.schedule(Math.max(0, at - this.sim.now), () => this.drain(), 'producer.drain');
  }

  /**
   * A sender pass right away, in this event: Java's Sender handles responses and goes straight back to sending
   * (Sender.runOnce), so a response frees its in-flight slot and the next batch leaves at once.
   */
  private drainNow(): void {
    // A pass already due now would find nothing more to do than this one.
    if (this.drainTimer?.pending && this.drainTimer.time <= this.sim.now) this.drainTimer.cancel();
    this.drain();
  }

  private drain(): void {
    const now = this.sim.now;
    const linger = this.config['linger.ms'];
    const maxInFlight = this.config['max.in.flight.requests.per.connection'];
    // Ready batches grouped by leader, leaders in the order they first appear (the order requests go out).
    let leaders: number[] | undefined;
    let groups: Batch[][] | undefined;
    let nextWake = Number.POSITIVE_INFINITY;
    let needMetadata = false;
    // A partition with a second ready batch behind the one sent now.
    let more = false;
    const cursors = this.drainCursors;
    const depth = cursors.length;
    cursors.push(0);
    for (; cursors[depth]! < this.active.length; cursors[depth]!++) {
      const deque = this.active[cursors[depth]!]!;
      this.expire(deque, now);
      if (deque.length === 0) continue;
      const b = deque.find((x) => !x.inFlight);
      if (!b) continue;
      if (
        this.config['enable.idempotence'] &&
        deque.indexOf(b) > 0 &&
        deque[0]!.attempts > 0 &&
        !deque[0]!.inFlight
      )
        continue;
      const ready = b.closed || b.attempts > 0 || b.createdAt + linger <= now || this.closing;
      if (!ready) {
        nextWake = Math.min(nextWake, b.createdAt + linger);
        continue;
      }
      const known = this.metadata.leader(b.topic, b.partition);
      // Java (KIP-951, RecordAccumulator.shouldBackoff): a retry waits out its backoff unless the partition has
      // a newer leader than when the batch was last sent.
      if (b.retryAt > now && !(this.flavour === 'java' && known && known.leaderEpoch > b.sentLeaderEpoch)) {
        nextWake = Math.min(nextWake, b.retryAt);
        continue;
      }
      const leader = known?.leader ?? -1;
      if (leader < 0) {
        needMetadata = true;
        nextWake = Math.min(nextWake, now + this.config['retry.backoff.ms']);
        continue;
      }
      const next = deque[deque.indexOf(b) + 1];
      if (next && (next.closed || next.createdAt + linger <= now || this.closing)) more = true;
      leaders ??= [];
      groups ??= [];
      const i = leaders.indexOf(leader);
      if (i >= 0) groups[i]!.push(b);
      else {
        leaders.push(leader);
        groups.push([b]);
      }
    }
    cursors.pop();
    // Deques found empty leave the list (only outside every pass, so that no pass's position moves).
    if (depth === 0) this.compactActive();
    let sent = false;
    for (let g = 0; leaders && groups && g < leaders.length; g++) {
      const broker = leaders[g]!;
      const batches = groups[g]!;
      if ((this.inFlightPerBroker.get(broker) ?? 0) >= maxInFlight) continue;
      sent = true;
      let size = 0;
      const chosen: Batch[] = [];
      for (const b of batches) {
        if (chosen.length > 0 && size + b.bytes > MAX_REQUEST_SIZE) break;
        chosen.push(b);
        size += b.bytes;
      }
      this.sendProduce(broker, chosen);
    }
    if (needMetadata) this.requestMetadataUpdate();
    if (nextWake < Number.POSITIVE_INFINITY) this.wakeSender(nextWake);
    // Java's drain takes one batch per partition per request, and Sender.runOnce loops straight back while
    // batches are ready, so the next batch of a partition leaves at once in another request (up to
    // max.in.flight), not after the first one's response.
    if (more && sent) this.drain();
  }

  private expire(deque: Batch[], now: number): void {
    const timeout = this.config['delivery.timeout.ms'];
    while (deque.length > 0) {
      const b = deque[0]!;
      if (b.inFlight || now - b.createdAt < timeout) return;
      deque.shift();
      this.complete(b, -1, 'DELIVERY_TIMEOUT');
    }
  }

  private sendProduce(broker: number, batches: Batch[]): void {
    const correlationId = this.correlationId++;
    const idempotent = this.config['enable.idempotence'];
    for (const b of batches) {
      b.closed = true;
      b.inFlight = true;
      b.attempts++;
      b.sentLeaderEpoch = this.metadata.leader(b.topic, b.partition)?.leaderEpoch ?? -1;
      if (idempotent && b.baseSequence < 0) {
        const seq = this.sequences.get(b.key) ?? 0;
        b.baseSequence = seq;
        this.sequences.set(b.key, seq + b.count);
      }
    }
    const req: ProduceRequest = {
      type: 'Produce',
      acks: this.config.acks,
      timeoutMs: this.config['request.timeout.ms'],
      clientId: this.config['client.id'],
      correlationId,
      partitions: batches.map((b) => ({
        topic: b.topic,
        partition: b.partition,
        batch: this.wireBatch(b, idempotent),
      })),
    };
    if (this.config.acks === 0) {
      this.sendMessage(brokerNodeId(broker), req);
      for (const b of batches) {
        this.removeBatch(b);
        this.complete(b, -1, undefined);
      }
      this.wakeSender();
      return;
    }
    this.inFlightPerBroker.set(broker, (this.inFlightPerBroker.get(broker) ?? 0) + 1);
    this.connected.add(broker);
    this.request<ProduceResponse>(
      brokerNodeId(broker),
      req,
      (o) => {
        this.inFlightPerBroker.set(broker, (this.inFlightPerBroker.get(broker) ?? 1) - 1);
        if (!o.ok) {
          // Java's NetworkClient closes the connection on a timeout or a disconnect.
          this.connected.delete(broker);
          const error: ErrorName = o.error === 'timeout' ? 'REQUEST_TIMED_OUT' : 'NETWORK_EXCEPTION';
          for (const b of batches) this.handleError(b, correlationId, error, undefined, true);
          this.requestMetadataUpdate();
        } else {
          const answered = o.response.partitions;
          for (let i = 0; i < batches.length; i++)
            this.handlePartitionResponse(batches[i]!, correlationId, answerFor(answered, i, batches[i]!));
        }
        this.drainNow();
      },
      this.config['request.timeout.ms'] + 1000,
    );
  }

  /** The batch as sent; built once (a retry resends the same data with the same sequence). */
  private wireBatch(b: Batch, idempotent: boolean): ProducerBatchData {
    b.wire ??= {
      count: b.count,
      bytes: b.bytes,
      producerId: idempotent ? this.producerId : -1,
      producerEpoch: idempotent ? this.producerEpoch : -1,
      baseSequence: idempotent ? b.baseSequence : -1,
      origin: this.id,
      // A batch is closed once sent, so its runs and records no longer change and can be shared.
      runs: b.runs,
      records: b.records,
    };
    return b.wire;
  }

  private handlePartitionResponse(
    b: Batch,
    correlationId: number,
    res: ProducePartitionResponse | undefined,
  ): void {
    if (!res) return this.handleError(b, correlationId, 'UNKNOWN_SERVER_ERROR', undefined, false);
    if (res.errorCode === 0) {
      this.removeBatch(b);
      this.complete(b, res.baseOffset, undefined);
      return;
    }
    const entry = errorByCode(res.errorCode);
    if (res.currentLeader) this.metadata.hint(b.topic, b.partition, res.currentLeader);
    else if (entry.invalidMetadata) this.metadata.invalidate(b.topic, b.partition);
    this.handleError(b, correlationId, entry.name, res.errorMessage, entry.invalidMetadata);
  }

  private handleError(
    b: Batch,
    correlationId: number,
    error: ErrorName,
    message: string | undefined,
    invalidMetadata: boolean,
  ): void {
    b.inFlight = false;
    this.errorCounts[error] = (this.errorCounts[error] ?? 0) + 1;
    const entry = Errors[error];
    const idempotentReorder =
      error === 'OUT_OF_ORDER_SEQUENCE_NUMBER' &&
      this.config['enable.idempotence'] &&
      this.hasEarlierUnacked(b);
    const retriable = entry.retriable || error === 'NETWORK_EXCEPTION' || idempotentReorder;
    const attemptsLeft = this.config.retries - b.attempts;
    const timedOut = this.sim.now - b.createdAt >= this.config['delivery.timeout.ms'];
    if (retriable && attemptsLeft >= 0 && !timedOut) {
      this.emitEvent({
        type: 'retry',
        clientId: this.config['client.id'],
        correlationId,
        topic: b.topic,
        partition: b.partition,
        attemptsLeft,
        error,
        invalidMetadata: invalidMetadata || entry.invalidMetadata,
        errorMessage: message,
      });
      const backoff = Math.min(
        this.config['retry.backoff.max.ms'],
        this.config['retry.backoff.ms'] * 2 ** Math.max(0, b.attempts - 1),
      );
      b.retryAt = this.sim.now + this.random('backoff').jitter(backoff, 0.2);
      if (invalidMetadata || entry.invalidMetadata) this.requestMetadataUpdate();
      this.requeueInOrder(b);
      return;
    }
    this.removeBatch(b);
    this.complete(b, -1, timedOut ? 'DELIVERY_TIMEOUT' : error);
  }

  private hasEarlierUnacked(b: Batch): boolean {
    const deque = this.deques.get(b.key);
    return !!deque && deque.indexOf(b) > 0;
  }

  /** Keeps the deque in sequence order so retries go out in the original order. */
  private requeueInOrder(b: Batch): void {
    if (!this.config['enable.idempotence']) return;
    const deque = this.deques.get(b.key);
    if (!deque) return;
    deque.sort((x, y) =>
      x.baseSequence < 0 ? 1 : y.baseSequence < 0 ? -1 : x.baseSequence - y.baseSequence,
    );
    // Everything after a failed batch must be resent after it: take later in-flight ones back too.
    for (const x of deque)
      if (x !== b && x.baseSequence > b.baseSequence && x.retryAt < b.retryAt) x.retryAt = b.retryAt;
  }

  private removeBatch(b: Batch): void {
    const deque = this.deques.get(b.key);
    if (!deque) return;
    const i = deque.indexOf(b);
    if (i < 0) return;
    // In place: splice would allocate the removed list once per acknowledged batch.
    for (let j = i + 1; j < deque.length; j++) deque[j - 1] = deque[j]!;
    deque.pop();
  }

  private complete(b: Batch, baseOffset: number, error: DeliveryResult['error']): void {
    const result: DeliveryResult = {
      topic: b.topic,
      partition: b.partition,
      baseOffset,
      count: b.count,
      runs: b.runs,
      time: this.sim.now,
      ...(error ? { error } : {}),
    };
    if (error) {
      this.recordsFailed += b.count;
      this.emitEvent({ type: 'failed', topic: b.topic, partition: b.partition, count: b.count, error });
    } else this.recordsAcked += b.count;
    if (b.callbacks) for (const cb of b.callbacks) cb(result);
    for (const l of this.listeners) l(result);
  }

  /** Sends whatever is buffered without waiting for linger.ms. */
  flush(): void {
    this.closing = true;
    this.wakeSender();
  }
}
