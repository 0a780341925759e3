// Between the wire's record batches and the model's: a client's batch becomes a model batch that keeps the
// client's bytes (served back byte for byte) and its records' keys and values as text (what simulated consumers
// and the Lake sink read); a batch the model made itself (a simulated producer's) is written as a magic-2 batch
// when a real consumer fetches it, with its content when it has one, else values of its modelled size.
import type { RecordBatch, RecordData } from '../../models/storage/index.ts';
import { withOffsets, writeBatch } from './codec/record-batch.ts';

const served = new WeakMap<RecordBatch, Buffer>();

/**
 * The bytes a fetch returns for a stored batch (built once per batch: stored batches never change). A batch the model
 * made is stamped with its append time on the simulation's wall clock (`startTime`, epoch ms at virtual time 0).
 */
export function batchBytes(b: RecordBatch, startTime: number): Buffer {
  let out = served.get(b);
  if (out) return out;
  if (b.encoded) out = withOffsets(b.encoded, b.baseOffset, b.partitionLeaderEpoch);
  else {
    const valueSize = b.count > 0 ? Math.max(0, Math.floor(b.bytes / b.count)) : 0;
    const records = b.records
      ? b.records.map((r) => ({ key: text(r.key), value: text(r.value) }))
      : Array.from({ length: b.count }, () => ({ key: null, value: Buffer.alloc(valueSize) }));
    out = Buffer.from(
      writeBatch({
        baseOffset: b.baseOffset,
        partitionLeaderEpoch: b.partitionLeaderEpoch,
        baseTimestamp: startTime + b.appendTime,
        producerId: b.producerId,
        producerEpoch: b.producerEpoch,
        baseSequence: b.baseSequence,
        records,
      }),
    );
  }
  served.set(b, out);
  return out;
}

const text = (s: string | null): Buffer | null => (s === null ? null : Buffer.from(s, 'utf8'));

const EMPTY = Buffer.alloc(0);

/** A fetched partition's records field: its batches back to back (empty, not null, when there are none). */
export function recordsOf(batches: readonly RecordBatch[], startTime: number): Buffer {
  if (batches.length === 0) return EMPTY;
  if (batches.length === 1) return batchBytes(batches[0]!, startTime);
  return Buffer.concat(batches.map((b) => batchBytes(b, startTime)));
}

export function recordDataOf(key: Buffer | null, value: Buffer | null): RecordData {
  return {
    key: key === null ? null : key.toString('utf8'),
    value: value === null ? null : value.toString('utf8'),
  };
}
