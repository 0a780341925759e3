// The nemesis's checker, run once the cluster has healed and settled. It reads the logs directly and through a
// consumer that reads every partition from the start, and reports every broken promise:
// - lost: a record the producer saw acknowledged is in no committed log (none below the leader's high watermark)
//   or was not read by the consumer;
// - duplicated: an idempotent producer's record is committed (or read) more than once;
// - offsets: a leader's log is not contiguous (each batch starts where the one before ended);
// - divergence: a replica's committed log (below its own high watermark) is not a prefix of the leader's.
// Retention may delete acknowledged records: one is excused (counted as deleted) only when the producer was told an
// offset below its partition's log start.
import type { RecordBatch } from '../../models/storage/index.ts';
import type { Cluster } from '../../src/cluster/index.ts';

/** What one producer was told: per record index, 1 once acknowledged, and the partition and offset it was given. */
export class AckLog {
  acked = new Uint8Array(1024);
  partition = new Int32Array(1024);
  offset = new Float64Array(1024);
  count = 0;
  sent = 0;

  constructor(
    readonly origin: string,
    readonly idempotent: boolean,
  ) {}

  note(r: {
    partition: number;
    baseOffset: number;
    runs: readonly { index: number; count: number }[];
    error?: unknown;
  }): void {
    let offset = r.baseOffset;
    for (const run of r.runs) {
      const end = run.index + run.count;
      this.sent = Math.max(this.sent, end);
      if (r.error) continue;
      if (end > this.acked.length) {
        const size = Math.max(end, this.acked.length * 2);
        const acked = new Uint8Array(size);
        acked.set(this.acked);
        this.acked = acked;
        const partition = new Int32Array(size);
        partition.set(this.partition);
        this.partition = partition;
        const offsets = new Float64Array(size);
        offsets.set(this.offset);
        this.offset = offsets;
      }
      for (let i = run.index; i < end; i++) {
        if (this.acked[i] === 0) this.count++;
        this.acked[i] = 1;
        this.partition[i] = r.partition;
        this.offset[i] = offset++;
      }
    }
  }
}

/** Copies per record index of each producer, counted from batches (optionally skipping a first batch's head). */
export class Copies {
  private readonly counts = new Map<string, Int32Array>();

  add(b: RecordBatch, skip = 0): void {
    let arr = this.counts.get(b.origin);
    let left = skip;
    for (const run of b.runs) {
      const from = run.index + Math.min(left, run.count);
      left = Math.max(0, left - run.count);
      const end = run.index + run.count;
      if (!arr || end > arr.length) {
        const next = new Int32Array(Math.max(end, (arr?.length ?? 512) * 2));
        if (arr) next.set(arr);
        arr = next;
        this.counts.set(b.origin, arr);
      }
      for (let i = from; i < end; i++) arr[i]!++;
    }
  }

  of(origin: string, index: number): number {
    const arr = this.counts.get(origin);
    return arr && index < arr.length ? arr[index]! : 0;
  }
}

export interface CheckResult {
  violations: string[];
  acknowledged: number;
  /** Acknowledged records retention deleted (their offset is below the partition's log start). */
  deleted: number;
  committed: number;
  consumed: number;
}

const sameBatch = (a: RecordBatch, b: RecordBatch): boolean =>
  a.baseOffset === b.baseOffset &&
  a.count === b.count &&
  a.origin === b.origin &&
  a.producerId === b.producerId &&
  a.baseSequence === b.baseSequence &&
  a.partitionLeaderEpoch === b.partitionLeaderEpoch &&
  a.runs[0]?.index === b.runs[0]?.index;

/** Checks the logs of `topic` against the acknowledgements, and what a full read (`consumed`) delivered. */
export function checkLogs(c: Cluster, topic: string, acks: readonly AckLog[], consumed: Copies): CheckResult {
  const violations: string[] = [];
  const t = c.image.topics[topic];
  if (!t)
    return { violations: [`topic ${topic} is gone`], acknowledged: 0, deleted: 0, committed: 0, consumed: 0 };
  const logStart: number[] = [];
  const committed = new Copies();
  let committedRecords = 0;
  t.partitions.forEach((reg, p) => {
    const leader = reg.leader >= 0 ? c.brokers.get(reg.leader) : undefined;
    const lr = leader?.replicas.get(`${t.topicId}:${p}`);
    if (!lr || lr.role !== 'leader') {
      violations.push(`partition ${p}: no serving leader after settling (leader ${reg.leader})`);
      return;
    }
    const log = lr.log;
    logStart[p] = log.logStartOffset;
    const batches = log.allBatches();
    let expect = batches[0]?.baseOffset ?? log.logStartOffset;
    for (const b of batches) {
      if (b.baseOffset !== expect)
        violations.push(
          `partition ${p}: offsets not contiguous: batch at ${b.baseOffset}, expected ${expect}`,
        );
      expect = b.baseOffset + b.count;
      if (b.baseOffset + b.count <= log.highWatermark) {
        committed.add(b);
        committedRecords += b.count;
      }
    }
    if (expect !== log.logEndOffset)
      violations.push(`partition ${p}: log end ${log.logEndOffset}, batches end at ${expect}`);
    for (const id of reg.replicas) {
      if (id === reg.leader) continue;
      const r = c.brokers.get(id)?.replicas.get(`${t.topicId}:${p}`);
      if (!r) continue;
      const hw = r.log.highWatermark;
      const mine = r.log.allBatches();
      // Retention may have left the two logs different starts: compare from the later one, batch by batch.
      const from = Math.max(batches[0]?.baseOffset ?? log.logEndOffset, mine[0]?.baseOffset ?? 0);
      const mineFirst = mine.findIndex((b) => b.baseOffset >= from);
      const theirsFirst = batches.findIndex((b) => b.baseOffset >= from);
      for (
        let i = Math.max(0, mineFirst);
        mineFirst >= 0 && i < mine.length && mine[i]!.baseOffset < hw;
        i++
      ) {
        const theirs = theirsFirst < 0 ? undefined : batches[theirsFirst + i - mineFirst];
        if (!theirs || !sameBatch(mine[i]!, theirs)) {
          violations.push(
            `partition ${p}: broker ${id}'s committed log (hw ${hw}) diverges from leader ${reg.leader}'s at batch ${i} (offset ${mine[i]!.baseOffset})`,
          );
          break;
        }
      }
    }
  });
  let acknowledged = 0;
  let deleted = 0;
  for (const a of acks) {
    const lost: number[] = [];
    const unread: number[] = [];
    const dupes: number[] = [];
    for (let i = 0; i < a.sent; i++) {
      const n = committed.of(a.origin, i);
      const read = consumed.of(a.origin, i);
      if (a.acked[i] === 1) {
        acknowledged++;
        if (n === 0 && a.offset[i]! < (logStart[a.partition[i]!] ?? 0)) deleted++;
        else if (n === 0) lost.push(i);
        else if (read === 0) unread.push(i);
      }
      if (a.idempotent && (n > 1 || read > 1)) dupes.push(i);
    }
    if (lost.length > 0)
      violations.push(
        `${a.origin}: ${lost.length} acknowledged records lost (e.g. ${lost.slice(0, 5).join(',')})`,
      );
    if (unread.length > 0)
      violations.push(
        `${a.origin}: ${unread.length} acknowledged records never read by the consumer (e.g. ${unread.slice(0, 5).join(',')})`,
      );
    if (dupes.length > 0)
      violations.push(
        `${a.origin}: ${dupes.length} records duplicated despite idempotence (e.g. ${dupes.slice(0, 5).join(',')})`,
      );
  }
  let consumedRecords = 0;
  for (const a of acks) for (let i = 0; i < a.sent; i++) consumedRecords += consumed.of(a.origin, i);
  // Reading from the start to the high watermark delivers each committed record once, no more, no less.
  if (consumedRecords !== committedRecords)
    violations.push(`the consumer read ${consumedRecords} records, the logs commit ${committedRecords}`);
  return { violations, acknowledged, deleted, committed: committedRecords, consumed: consumedRecords };
}
