// Produce, Fetch, ListOffsets, OffsetForLeaderEpoch: the data path, mapped onto the broker model's requests. A produced batch keeps the
// client's bytes and identity (for the sim-side delivery report); a fetch is a full fetch every time (fetch
// sessions are declined with session id 0, KIP-227), answered from the broker's log with its batches as bytes.
import type {
  FetchPartitionResponse,
  FetchResponse,
  ListOffsetsResponse,
  OffsetForLeaderEpochResponse,
  ProduceResponse,
} from '../../../models/protocol/index.ts';
import type { ProducerBatchData, RecordRun } from '../../../models/storage/index.ts';
import { WireDecodeError } from '../codec/bytes.ts';
import type { Message } from '../codec/message-codec.ts';
import { isControl, isTransactional, readBatches } from '../codec/record-batch.ts';
import type { FetchRequestData } from '../generated/fetch-request.ts';
import type { ListOffsetsRequestData } from '../generated/list-offsets-request.ts';
import type { OffsetForLeaderEpochRequestData } from '../generated/offset-for-leader-epoch-request.ts';
import type { ProduceRequestData } from '../generated/produce-request.ts';
import { recordDataOf, recordsOf } from '../record-conversion.ts';
import { byTopic, call, type HandlerContext } from './context.ts';

const CORRUPT_MESSAGE = 2;
const INVALID_RECORD = 87;
const TRANSACTIONAL_ID_AUTHORIZATION_FAILED = 53;
const FETCH_SESSION_ID_NOT_FOUND = 70;
const INVALID_REQUEST = 42;

interface PartitionAnswer {
  index: number;
  errorCode: number;
  baseOffset: number;
  errorMessage: string | null;
  currentLeader?: { leaderId: number; leaderEpoch: number };
}

export function handleProduce(ctx: HandlerContext, m: Message): void {
  const req = m as unknown as ProduceRequestData;
  const clientId = ctx.clientId || ctx.conn.id;
  const answers = new Map<string, PartitionAnswer>();
  const key = (t: string, p: number) => `${t}\u0000${p}`;
  const sent: { topic: string; partition: number; batch: ProducerBatchData; index: number; count: number }[] =
    [];
  const now = ctx.conn.node.sim.now;
  for (const t of req.topicData) {
    for (const p of t.partitionData) {
      const answer: PartitionAnswer = { index: p.index, errorCode: 0, baseOffset: -1, errorMessage: null };
      answers.set(key(t.name, p.index), answer);
      if (req.transactionalId !== null) {
        answer.errorCode = TRANSACTIONAL_ID_AUTHORIZATION_FAILED;
        answer.errorMessage = 'kafkasim does not model transactions';
        continue;
      }
      try {
        const batches = readBatches(p.records ?? new Uint8Array(0));
        if (batches.length !== 1)
          throw new WireDecodeError(`a produce needs exactly one record batch, got ${batches.length}`);
        const b = batches[0]!;
        if (isTransactional(b.attributes) || isControl(b.attributes))
          throw new WireDecodeError('transactional and control batches are not modelled');
        if (b.records.length === 0) throw new WireDecodeError('an empty record batch');
        const crc = b.raw.readUInt32BE(17);
        const count = b.records.length;
        const index = ctx.session.recordIndex(clientId, `${t.name}/${p.index}/${crc}/${count}`, count);
        const runs: RecordRun[] = [{ index, count, time: now }];
        const batch: ProducerBatchData = {
          count,
          bytes: b.raw.length,
          producerId: b.producerId,
          producerEpoch: b.producerEpoch,
          baseSequence: b.baseSequence,
          origin: clientId,
          runs,
          records: b.records.map((r) => recordDataOf(r.key, r.value)),
          encoded: Buffer.from(b.raw),
          recordTimestamps: b.records.map((r) => b.baseTimestamp + r.timestampDelta),
        };
        sent.push({ topic: t.name, partition: p.index, batch: batch, index, count });
      } catch (e) {
        if (!(e instanceof WireDecodeError)) throw e;
        answer.errorCode = /CRC|magic/.test(e.message) ? CORRUPT_MESSAGE : INVALID_RECORD;
        answer.errorMessage = e.message;
      }
    }
  }
  const respond = () =>
    ctx.respond({
      responses: [...byTopic([...answers.entries()], ([k]) => k.split('\u0000')[0]!)].map(
        ([name, parts]) => ({
          name,
          partitionResponses: parts.map(([, a]) => ({
            index: a.index,
            errorCode: a.errorCode,
            baseOffset: a.baseOffset,
            logAppendTimeMs: -1,
            logStartOffset: -1,
            recordErrors: [],
            errorMessage: a.errorMessage,
            currentLeader: a.currentLeader ?? { leaderId: -1, leaderEpoch: -1 },
          })),
        }),
      ),
      throttleTimeMs: 0,
    });
  if (sent.length === 0) return req.acks === 0 ? undefined : respond();
  const payload = {
    type: 'Produce' as const,
    acks: req.acks as 0 | 1 | -1,
    timeoutMs: req.timeoutMs,
    clientId,
    correlationId: 0,
    partitions: sent.map((s) => ({ topic: s.topic, partition: s.partition, batch: s.batch })),
  };
  if (req.acks === 0) {
    ctx.conn.node.sendMessage(ctx.conn.node.broker!, payload);
    return;
  }
  call<ProduceResponse>(
    ctx,
    payload,
    (res) => {
      for (const r of res.partitions) {
        const a = answers.get(key(r.topic, r.partition));
        if (!a) continue;
        a.errorCode = r.errorCode;
        a.baseOffset = r.baseOffset;
        a.errorMessage = r.errorMessage ?? null;
        if (r.currentLeader) a.currentLeader = r.currentLeader;
        const s = sent.find((x) => x.topic === r.topic && x.partition === r.partition);
        if (s && r.errorCode === 0)
          ctx.session.acknowledge(clientId, r.topic, r.partition, r.baseOffset, s.index, s.count);
      }
      respond();
    },
    { timeoutMs: req.timeoutMs + 60_000 },
  );
}

export function handleFetch(ctx: HandlerContext, m: Message): void {
  const req = m as unknown as FetchRequestData;
  const v = ctx.version;
  if (v >= 7 && req.sessionId !== 0) {
    return ctx.respond({
      throttleTimeMs: 0,
      errorCode: FETCH_SESSION_ID_NOT_FOUND,
      sessionId: 0,
      responses: [],
    });
  }
  const partitions = req.topics.flatMap((t) =>
    t.partitions.map((p) => ({
      topic: t.topic,
      partition: p.partition,
      fetchOffset: p.fetchOffset,
      ...(v >= 9 ? { currentLeaderEpoch: p.currentLeaderEpoch } : {}),
      partitionMaxBytes: p.partitionMaxBytes,
    })),
  );
  call<FetchResponse>(
    ctx,
    {
      type: 'Fetch',
      replicaId: -1,
      maxWaitMs: req.maxWaitMs,
      minBytes: req.minBytes,
      maxBytes: v >= 3 ? req.maxBytes : 0x7fffffff,
      partitions,
    },
    (res) => {
      ctx.respond({
        throttleTimeMs: 0,
        errorCode: 0,
        sessionId: 0,
        responses: [...byTopic(res.partitions, (p) => p.topic)].map(([topic, parts]) => ({
          topic,
          partitions: parts.map((p: FetchPartitionResponse) => ({
            partitionIndex: p.partition,
            errorCode: p.errorCode,
            highWatermark: p.highWatermark,
            lastStableOffset: p.highWatermark,
            logStartOffset: p.logStartOffset,
            ...(p.currentLeader ? { currentLeader: p.currentLeader } : {}),
            abortedTransactions: null,
            preferredReadReplica: -1,
            records: recordsOf(p.batches, ctx.conn.node.sim.startTime),
          })),
        })),
      });
    },
    { timeoutMs: req.maxWaitMs + 60_000 },
  );
}

export function handleListOffsets(ctx: HandlerContext, m: Message): void {
  const req = m as unknown as ListOffsetsRequestData;
  const asked: { topic: string; partition: number; timestamp: number }[] = [];
  const refused: { topic: string; partition: number }[] = [];
  for (const t of req.topics)
    for (const p of t.partitions) {
      // -1 latest, -2 earliest, a time in epoch ms; v7's -3 (MAX_TIMESTAMP) is not advertised.
      if (p.timestamp >= -2)
        asked.push({ topic: t.name, partition: p.partitionIndex, timestamp: p.timestamp });
      else refused.push({ topic: t.name, partition: p.partitionIndex });
    }
  const respond = (res: ListOffsetsResponse['partitions']) => {
    const all = [
      ...res.map((p) => ({ ...p, timestamp: p.timestamp ?? -1 })),
      ...refused.map((p) => ({
        ...p,
        errorCode: INVALID_REQUEST,
        offset: -1,
        leaderEpoch: -1,
        timestamp: -1,
      })),
    ];
    ctx.respond({
      throttleTimeMs: 0,
      topics: [...byTopic(all, (p) => p.topic)].map(([name, parts]) => ({
        name,
        partitions: parts.map((p) => ({
          partitionIndex: p.partition,
          errorCode: p.errorCode,
          timestamp: p.timestamp,
          offset: p.offset,
          leaderEpoch: p.leaderEpoch,
          oldStyleOffsets: [p.offset],
        })),
      })),
    });
  };
  if (asked.length === 0) return respond([]);
  call<ListOffsetsResponse>(ctx, { type: 'ListOffsets', partitions: asked }, (res) =>
    respond(res.partitions),
  );
}

/** KIP-320: where an epoch ends in the leader's log, so a consumer can tell whether its position was truncated away. */
export function handleOffsetForLeaderEpoch(ctx: HandlerContext, m: Message): void {
  const req = m as unknown as OffsetForLeaderEpochRequestData;
  const partitions = req.topics.flatMap((t) =>
    t.partitions.map((p) => ({
      topic: t.topic,
      partition: p.partition,
      currentLeaderEpoch: p.currentLeaderEpoch,
      leaderEpoch: p.leaderEpoch,
    })),
  );
  call<OffsetForLeaderEpochResponse>(ctx, { type: 'OffsetForLeaderEpoch', partitions }, (res) =>
    ctx.respond({
      throttleTimeMs: 0,
      topics: [...byTopic(res.partitions, (p) => p.topic)].map(([topic, parts]) => ({
        topic,
        partitions: parts.map((p) => ({
          errorCode: p.errorCode,
          partition: p.partition,
          leaderEpoch: p.leaderEpoch,
          endOffset: p.endOffset,
        })),
      })),
    }),
  );
}
