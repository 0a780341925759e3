// The delivery check counts each record's copies in the logs from its runs (a difference array over record
// indexes): checked against counting record by record, over random logs, acknowledgements and producers.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { PartitionLog, RecordBatch } from '../../models/storage/index.ts';
import { DeliveryTracker } from '../../src/cluster/delivery-check.ts';

interface Run {
  index: number;
  count: number;
}

const runArb = fc.record({ index: fc.nat(300), count: fc.integer({ min: 1, max: 40 }) });
const batchArb = fc.record({
  origin: fc.constantFrom('p', 'other'),
  runs: fc.array(runArb, { maxLength: 3 }),
});

/** Logs holding these batches (the check reads only allBatches()). */
function logs(batches: { origin: string; runs: Run[] }[][]): PartitionLog[] {
  return batches.map(
    (bs) => ({ allBatches: () => bs as unknown as readonly RecordBatch[] }) as unknown as PartitionLog,
  );
}

describe('DeliveryTracker.check', () => {
  it('finds the same lost, duplicated and unacknowledged records as counting every record', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(batchArb, { maxLength: 6 }), { maxLength: 4 }),
        fc.array(runArb, { maxLength: 8 }),
        fc.nat(400),
        (parts, acks, sent) => {
          const t = new DeliveryTracker('p');
          for (const a of acks)
            t.note({
              topic: 't',
              partition: 0,
              baseOffset: 0,
              count: a.count,
              runs: [{ ...a, time: 0 }],
              time: 0,
            });
          const report = t.check(logs(parts), sent);

          const n = Math.max(sent, ...acks.map((a) => a.index + a.count), 0);
          const copies = new Array<number>(n).fill(0);
          for (const bs of parts)
            for (const b of bs)
              if (b.origin === 'p')
                for (const r of b.runs)
                  for (let i = r.index; i < r.index + r.count && i < n; i++) copies[i]!++;
          const acked = new Set(acks.flatMap((a) => Array.from({ length: a.count }, (_, k) => a.index + k)));
          const lost = copies.filter((c, i) => c === 0 && acked.has(i)).length;
          const duplicated = copies.reduce((s, c) => s + Math.max(0, c - 1), 0);
          const unacked = copies.filter((c, i) => c > 0 && !acked.has(i)).length;
          expect(report).toMatchObject({ sent: n, lost, duplicated, unacknowledgedInLog: unacked });
          expect(report.lostExamples).toEqual(
            copies.flatMap((c, i) => (c === 0 && acked.has(i) ? [i] : [])).slice(0, 20),
          );
        },
      ),
      { numRuns: 300 },
    );
  });
});
