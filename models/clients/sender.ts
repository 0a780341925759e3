// A producer's sender (Java's Sender): takes the accumulator's ready batches, sends one Produce request per
// leader broker with up to max.in.flight.requests.per.connection outstanding (and at most max.request.size per
// request), and handles the answers: an acknowledged batch completes; a retriable error puts the batch back
// with exponential backoff (and asks for metadata when the error says the leader moved, following KIP-951
// leader hints); anything else, or delivery.timeout.ms passed, fails it.

import {
  brokerNodeId,
  type ErrorName,
  Errors,
  errorByCode,
  type ProducePartitionResponse,
  type ProduceRequest,
  type ProduceResponse,
} from '../protocol/index.ts';
import type { NodeId, SimNode, Timer } from '../sim/index.ts';
import type { ClientFlavour, ProducerConfig } from './config.ts';
import type { MetadataCache } from './metadata-cache.ts';
import type { NodeConnections } from './node-connections.ts';
import type { DeliveryResult, ProducerBatch } from './producer-batch.ts';
import type { RecordAccumulator } from './record-accumulator.ts';

/** Java's max.request.size. */
const MAX_REQUEST_SIZE = 1_048_576;

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

/** What the sender needs of the producer it sends for. */
export interface SenderClient {
  readonly node: SimNode;
  readonly flavour: ClientFlavour;
  readonly config: ProducerConfig;
  readonly metadata: MetadataCache;
  readonly accumulator: RecordAccumulator;
  readonly connections: NodeConnections;
  /** The producer id and epoch batches carry with idempotence. */
  identity(): { producerId: number; producerEpoch: number };
  /** Errors seen so far, by name. */
  readonly errorCounts: Partial<Record<string, number>>;
  /** A batch is done: acknowledged (`baseOffset`), or failed (`error`). */
  complete(b: ProducerBatch, baseOffset: number, error: DeliveryResult['error']): void;
  emitEvent(e: ProducerEvent): void;
  /** Java's metadata.requestUpdate(). */
  requestMetadataUpdate(): void;
}

/**
 * A batch's answer in a Produce response. The broker answers in request order, so it is normally at the
 * batch's own index; a search covers a response that is not.
 */
function answerFor(
  answered: readonly ProducePartitionResponse[],
  i: number,
  b: ProducerBatch,
): ProducePartitionResponse | undefined {
  const at = answered[i];
  if (at && at.partition === b.partition && at.topic === b.topic) return at;
  return answered.find((p) => p.partition === b.partition && p.topic === b.topic);
}

export class Sender {
  private drainTimer: Timer | undefined;
  private correlationId = 0;
  private readonly sequences = new Map<string, number>();

  constructor(private readonly client: SenderClient) {}

  /** Schedules a sender pass at `at` (default now; at most one pending: Java's Sender.wakeup). */
  wakeup(at = this.client.node.sim.now): void {
    const node = this.client.node;
    if (this.drainTimer?.pending && this.drainTimer.time <= at) return;
    this.drainTimer?.cancel();
    this.drainTimer = node.schedule(Math.max(0, at - node.sim.now), () => this.run(), 'producer.drain');
  }

  /**
   * A sender pass right away, in this event: Java's Sender handles responses and goes straight back to sending
   * (Sender.runOnce), so a response frees its in-flight slot and the next batch leaves at once.
   */
  runNow(): void {
    // A pass already due now would find nothing more to do than this one.
    if (this.drainTimer?.pending && this.drainTimer.time <= this.client.node.sim.now)
      this.drainTimer.cancel();
    this.run();
  }

  private run(): void {
    const { accumulator, connections, config } = this.client;
    const maxInFlight = config['max.in.flight.requests.per.connection'];
    const { leaders, groups, nextWake, needMetadata, more } = accumulator.ready(this.client.node.sim.now);
    let sent = false;
    for (let g = 0; leaders && groups && g < leaders.length; g++) {
      const broker = leaders[g]!;
      const batches = groups[g]!;
      if (connections.inFlightTo(broker) >= maxInFlight) continue;
      sent = true;
      let size = 0;
      const chosen: ProducerBatch[] = [];
      for (const b of batches) {
        if (chosen.length > 0 && size + b.bytes > MAX_REQUEST_SIZE) break;
        chosen.push(b);
        size += b.bytes;
      }
      this.sendProduce(broker, chosen);
    }
    if (needMetadata) this.client.requestMetadataUpdate();
    if (nextWake < Number.POSITIVE_INFINITY) this.wakeup(nextWake);
    // Java's drain takes one batch per partition per request, and Sender.runOnce loops straight back while
    // batches are ready, so the next batch of a partition leaves at once in another request (up to
    // max.in.flight), not after the first one's response.
    if (more && sent) this.run();
  }

  private sendProduce(broker: number, batches: ProducerBatch[]): void {
    const { node, config, metadata, accumulator, connections } = this.client;
    const correlationId = this.correlationId++;
    const idempotent = config['enable.idempotence'];
    for (const b of batches) {
      b.closed = true;
      b.inFlight = true;
      b.attempts++;
      b.sentLeaderEpoch = metadata.leader(b.topic, b.partition)?.leaderEpoch ?? -1;
      if (idempotent && b.baseSequence < 0) {
        const seq = this.sequences.get(b.key) ?? 0;
        b.baseSequence = seq;
        this.sequences.set(b.key, seq + b.count);
      }
    }
    const { producerId, producerEpoch } = this.client.identity();
    const req: ProduceRequest = {
      type: 'Produce',
      acks: config.acks,
      timeoutMs: config['request.timeout.ms'],
      clientId: config['client.id'],
      correlationId,
      partitions: batches.map((b) => ({
        topic: b.topic,
        partition: b.partition,
        batch: b.wireData(producerId, producerEpoch, idempotent, node.id),
      })),
    };
    if (config.acks === 0) {
      node.sendMessage(brokerNodeId(broker), req);
      for (const b of batches) {
        accumulator.remove(b);
        this.client.complete(b, -1, undefined);
      }
      this.wakeup();
      return;
    }
    connections.sent(broker);
    node.request<ProduceResponse>(
      brokerNodeId(broker),
      req,
      (o) => {
        connections.answered(broker);
        if (!o.ok) {
          connections.disconnect(broker);
          const error: ErrorName = o.error === 'timeout' ? 'REQUEST_TIMED_OUT' : 'NETWORK_EXCEPTION';
          for (const b of batches) this.handleError(b, correlationId, error, undefined, true);
          this.client.requestMetadataUpdate();
        } else {
          const answered = o.response.partitions;
          for (let i = 0; i < batches.length; i++)
            this.handlePartitionResponse(batches[i]!, correlationId, answerFor(answered, i, batches[i]!));
        }
        this.runNow();
      },
      config['request.timeout.ms'] + 1000,
    );
  }

  private handlePartitionResponse(
    b: ProducerBatch,
    correlationId: number,
    res: ProducePartitionResponse | undefined,
  ): void {
    if (!res) return this.handleError(b, correlationId, 'UNKNOWN_SERVER_ERROR', undefined, false);
    if (res.errorCode === 0) {
      this.client.accumulator.remove(b);
      this.client.complete(b, res.baseOffset, undefined);
      return;
    }
    const entry = errorByCode(res.errorCode);
    const metadata = this.client.metadata;
    // KIP-951: a NOT_LEADER_OR_FOLLOWER naming the new leader moves the partition at once. Without one, Java's
    // Sender.completeBatch only asks for metadata (metadata.requestUpdate): its cached leader stays, so new batches
    // keep going to the old one until an answer or a later error names another. librdkafka marks the partition's
    // leader unavailable (rd_kafka_toppar_leader_unavailable) and waits for metadata.
    if (res.currentLeader) metadata.hint(b.topic, b.partition, res.currentLeader);
    else if (entry.invalidMetadata && this.client.flavour !== 'java')
      metadata.invalidate(b.topic, b.partition);
    this.handleError(b, correlationId, entry.name, res.errorMessage, entry.invalidMetadata);
  }

  private handleError(
    b: ProducerBatch,
    correlationId: number,
    error: ErrorName,
    message: string | undefined,
    invalidMetadata: boolean,
  ): void {
    const { node, config, accumulator } = this.client;
    b.inFlight = false;
    this.client.errorCounts[error] = (this.client.errorCounts[error] ?? 0) + 1;
    const entry = Errors[error];
    const idempotentReorder =
      error === 'OUT_OF_ORDER_SEQUENCE_NUMBER' &&
      config['enable.idempotence'] &&
      accumulator.hasEarlierUnacked(b);
    const retriable = entry.retriable || error === 'NETWORK_EXCEPTION' || idempotentReorder;
    const attemptsLeft = config.retries - b.attempts;
    const timedOut = node.sim.now - b.createdAt >= config['delivery.timeout.ms'];
    if (retriable && attemptsLeft >= 0 && !timedOut) {
      this.client.emitEvent({
        type: 'retry',
        clientId: config['client.id'],
        correlationId,
        topic: b.topic,
        partition: b.partition,
        attemptsLeft,
        error,
        invalidMetadata: invalidMetadata || entry.invalidMetadata,
        errorMessage: message,
      });
      const backoff = Math.min(
        config['retry.backoff.max.ms'],
        config['retry.backoff.ms'] * 2 ** Math.max(0, b.attempts - 1),
      );
      b.retryAt = node.sim.now + node.random('backoff').jitter(backoff, 0.2);
      if (invalidMetadata || entry.invalidMetadata) this.client.requestMetadataUpdate();
      accumulator.reenqueue(b);
      return;
    }
    accumulator.remove(b);
    this.client.complete(b, -1, timedOut ? 'DELIVERY_TIMEOUT' : error);
  }
}
