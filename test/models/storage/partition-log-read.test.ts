// PartitionLog.read and readableBytes: a parked fetch decides with readableBytes and answers with read, so the two
// must agree on every offset, bound and byte limit, or a fetch would wake without data (or sleep through it).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PartitionLog } from '../../../models/storage/index.ts';

function logOf(batches: readonly { count: number; bytes: number }[]): PartitionLog {
  const log = new PartitionLog('t', 0);
  for (const [i, b] of batches.entries()) {
    const outcome = log.appendAsLeader(
      {
        count: b.count,
        bytes: b.bytes,
        producerId: -1,
        producerEpoch: -1,
        baseSequence: -1,
        origin: 'p',
        runs: [{ index: i, count: b.count, time: 0 }],
      },
      0,
      0,
    );
    if (outcome.kind !== 'appended') throw new Error(`batch ${i} not appended: ${outcome.kind}`);
  }
  return log;
}

const batchesArb = fc.array(
  fc.record({ count: fc.integer({ min: 1, max: 5 }), bytes: fc.integer({ min: 1, max: 300 }) }),
  {
    maxLength: 12,
  },
);

describe('PartitionLog.readableBytes', () => {
  it('is exactly the bytes read() returns, for any offset, upper bound and byte limit', () => {
    fc.assert(
      fc.property(
        batchesArb,
        fc.nat({ max: 70 }),
        fc.nat({ max: 70 }),
        fc.integer({ min: 1, max: 1000 }),
        (batches, offset, maxOffset, maxBytes) => {
          const log = logOf(batches);
          const read = log.read(offset, maxOffset, maxBytes);
          const bytes = read.reduce((a, b) => a + b.bytes, 0);
          expect(log.readableBytes(offset, maxOffset, maxBytes)).toBe(bytes);
          // read() starts at the batch holding `offset` and never passes the bound.
          for (const b of read) expect(b.baseOffset).toBeLessThan(maxOffset);
          if (read.length > 0) expect(read[0]!.baseOffset + read[0]!.count).toBeGreaterThan(offset);
        },
      ),
    );
  });

  it('a caught-up reader gets nothing, and a limit smaller than the first batch still gets that batch', () => {
    const log = logOf([
      { count: 3, bytes: 100 },
      { count: 2, bytes: 50 },
    ]);
    expect(log.read(5, 5, 1000)).toEqual([]);
    expect(log.readableBytes(5, 5, 1000)).toBe(0);
    expect(log.read(1, 5, 10).map((b) => b.baseOffset)).toEqual([0]);
    expect(log.readableBytes(1, 5, 10)).toBe(100);
    expect(log.readableBytes(0, 3, 1000)).toBe(100);
    expect(log.readableBytes(0, 5, 1000)).toBe(150);
  });
});
