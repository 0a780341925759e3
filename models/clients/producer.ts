// A producer client, Java or librdkafka flavoured (Java's KafkaProducer): partitions records (explicit, murmur2 or
// CRC32 on keys, sticky for keyless), hands them to the record accumulator (record-accumulator.ts: batches by
// batch.size and linger.ms) and wakes the sender (sender.ts: Produce requests, retries, idempotent sequences);
// keeps the metadata cache fresh (metadata.max.age.ms, an unknown topic, an error that says the leader moved)
// and reports every batch's result.
//
// Records are appended by function calls, not events: a workload can add thousands of records in one event, and
// the producer only schedules events to send. Record identity is kept as runs of the producer's record indices.

import { brokerIdOf, type MetadataResponse } from '../protocol/index.ts';
import { type NodeId, SimNode, type Simulation } from '../sim/index.ts';
import {
  type ClientFlavour,
  type ProducerConfig,
  type ProducerConfigInput,
  producerConfig,
} from './config.ts';
import { MetadataCache } from './metadata-cache.ts';
import { MetadataRefresh } from './metadata-refresh.ts';
import { NodeConnections } from './node-connections.ts';
import { javaKeyPartition, librdkafkaConsistentPartition } from './partitioners.ts';
import {
  type DeliveryResult,
  type ProducerBatch,
  RECORD_OVERHEAD,
  type SendRecord,
} from './producer-batch.ts';
import { RecordAccumulator } from './record-accumulator.ts';
import { type ProducerEvent, Sender, type SenderClient } from './sender.ts';
import { StickyPartitioner } from './sticky-partitioner.ts';

const utf8 = new TextEncoder();

export interface ProducerOptions {
  flavour?: ClientFlavour;
  config?: ProducerConfigInput;
  /** Broker node ids to bootstrap from. */
  bootstrap: NodeId[];
  /** Carry record keys and values in batches (needed by consumers that read content). Default true. */
  keepContent?: boolean;
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
  private readonly accumulator: RecordAccumulator;
  private readonly sender: Sender;
  private readonly connections: NodeConnections;
  private readonly partitioner: StickyPartitioner;
  private readonly waitingForMetadata: {
    rec: SendRecord;
    index: number;
    cb?: (r: DeliveryResult) => void;
  }[] = [];
  private readonly listeners: ((r: DeliveryResult) => void)[] = [];
  private readonly eventListeners: ((e: ProducerEvent) => void)[] = [];
  private readonly metadataRefresh: MetadataRefresh;

  constructor(sim: Simulation, id: NodeId, options: ProducerOptions) {
    super(sim, id);
    this.flavour = options.flavour ?? 'java';
    this.config = producerConfig(this.flavour, options.config);
    this.keepContent = options.keepContent ?? true;
    this.metadata = new MetadataCache(options.bootstrap, {
      initialMs: this.config['retry.backoff.ms'],
      maxMs: this.config['retry.backoff.max.ms'],
    });
    this.accumulator = new RecordAccumulator(this.config, this.flavour, this.metadata, (b) =>
      this.complete(b, -1, 'DELIVERY_TIMEOUT'),
    );
    this.connections = new NodeConnections(this.metadata, () => this.random('metadata'));
    this.partitioner = new StickyPartitioner(this.config, this.metadata, () => this.random('partitioner'));
    const client: SenderClient = {
      node: this,
      flavour: this.flavour,
      config: this.config,
      metadata: this.metadata,
      accumulator: this.accumulator,
      connections: this.connections,
      identity: () => ({ producerId: this.producerId, producerEpoch: this.producerEpoch }),
      errorCounts: this.errorCounts,
      complete: (b, baseOffset, error) => this.complete(b, baseOffset, error),
      emitEvent: (e) => this.emitEvent(e),
      requestMetadataUpdate: () => this.requestMetadataUpdate(),
    };
    this.sender = new Sender(client);
    this.metadataRefresh = new MetadataRefresh(
      this,
      this.metadata,
      'producer.metadata-backoff',
      () => this.config['request.timeout.ms'],
      (ok, node, response) => {
        if (ok) this.metadataAnswered(node, response!);
        else {
          const id = brokerIdOf(node);
          if (id !== undefined) this.connections.disconnect(id);
        }
      },
      () => this.connections.leastLoadedNode(),
    );
  }

  protected override onStart(): void {
    // A request or backoff timer of the previous incarnation will never answer.
    this.metadataRefresh.reset();
    this.connections.reset();
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
      const p = partition ?? this.partitioner.partition(topic, this.sim.now);
      const batch = this.accumulator.openBatch(topic, p, this.sim.now);
      const recordBytes = valueBytes + RECORD_OVERHEAD;
      const room = Math.max(1, Math.floor((this.config['batch.size'] - batch.bytes) / recordBytes));
      const n = Math.min(left, batch.count === 0 ? Math.max(1, room) : room);
      if (batch.count > 0 && batch.bytes + recordBytes > this.config['batch.size']) {
        batch.closed = true;
        continue;
      }
      batch.addRun(this.recordsSent, n, n * recordBytes, this.sim.now);
      this.recordsSent += n;
      left -= n;
      if (partition === undefined) this.partitioner.noteBytes(topic, n * recordBytes);
      if (batch.bytes + recordBytes > this.config['batch.size']) batch.closed = true;
    }
    // The records of one call arrive together (a workload's burst), so the sender pass that Java's
    // accumulator.append wakes (Sender.wakeup) runs in this event: a separate event would find the same batches.
    this.sender.runNow();
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
    return this.partitioner.partition(rec.topic, this.sim.now);
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
    const content =
      this.keepContent && (rec.key != null || rec.value != null)
        ? rec.valueIsJson === true
          ? { key: rec.key ?? null, value: rec.value ?? null, valueIsJson: true as const }
          : { key: rec.key ?? null, value: rec.value ?? null }
        : undefined;
    this.accumulator.append(rec.topic, partition, index, size, this.sim.now, content, cb);
    if (rec.partition === undefined && (rec.key === undefined || rec.key === null))
      this.partitioner.noteBytes(rec.topic, size);
    this.sender.wakeup();
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
    this.sender.wakeup();
  }

  /** A batch is done: acknowledged (`baseOffset`), or failed (`error`). */
  private complete(b: ProducerBatch, baseOffset: number, error: DeliveryResult['error']): void {
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
    this.accumulator.flushing = true;
    this.sender.wakeup();
  }
}
