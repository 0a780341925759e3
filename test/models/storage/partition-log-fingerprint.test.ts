// What a PartitionLog mixes into the run's fingerprint once it reports to one (PartitionLog.reportTo): every batch
// appended, with each of its identifying fields, every truncation, every restart at an offset and every advance of
// the log start, each tagged with the replica; and nothing for an operation that changes nothing.
import { describe, expect, it } from 'vitest';
import { Fingerprint } from '../../../models/sim/index.ts';
import { PartitionLog, type RecordBatch } from '../../../models/storage/index.ts';

const base: RecordBatch = {
  baseOffset: 0,
  count: 3,
  bytes: 100,
  producerId: 7,
  producerEpoch: 1,
  baseSequence: 0,
  partitionLeaderEpoch: 2,
  appendTime: 5,
  origin: 'p1',
  runs: [
    { index: 0, count: 2, time: 0 },
    { index: 10, count: 1, time: 0 },
  ],
};

/** The fingerprint after a log reporting as `replica` went through `steps`. */
function hashOf(steps: (log: PartitionLog) => void, replica = 'b1'): string {
  const fp = new Fingerprint();
  const log = new PartitionLog('t', 0);
  log.reportTo(fp, replica);
  steps(log);
  return fp.hash;
}

const appendOne =
  (b: Partial<RecordBatch> = {}) =>
  (log: PartitionLog) =>
    log.appendAsFollower([{ ...base, ...b }]);

describe('PartitionLog: the run fingerprint', () => {
  it('the same history hashes the same, and a fixed history to a fixed value (golden fingerprints depend on it)', () => {
    const history = (log: PartitionLog) => {
      appendOne()(log);
      log.truncateTo(0);
      appendOne()(log);
      log.incrementLogStartOffset(1);
      log.truncateFullyAndStartAt(9);
    };
    expect(hashOf(history)).toBe(hashOf(history));
    // Pinned as the golden trace hashes are (test/scenario/golden-trace-hashes.json): a change to what a log mixes
    // changes every run's fingerprint, and must be made on purpose, updating this value in the same commit.
    expect(hashOf(history)).toBe('169aa2c5b36cb956');
    // A log that reports to no fingerprint leaves it as it was.
    const fp = new Fingerprint();
    const log = new PartitionLog('t', 0);
    appendOne()(log);
    expect(fp.hash).toBe(new Fingerprint().hash);
  });

  it('every identifying field of an appended batch counts, and the replica that appended it', () => {
    const reference = hashOf(appendOne());
    const variants: Partial<RecordBatch>[] = [
      { count: 4 },
      { bytes: 101 },
      { producerId: 8 },
      { producerEpoch: 2 },
      { baseSequence: 1 },
      { partitionLeaderEpoch: 3 },
      { origin: 'p2' },
      { runs: [{ index: 0, count: 2, time: 0 }] },
      {
        runs: [
          { index: 0, count: 2, time: 0 },
          { index: 11, count: 1, time: 0 },
        ],
      },
      {
        runs: [
          { index: 0, count: 1, time: 0 },
          { index: 10, count: 2, time: 0 },
        ],
      },
    ];
    const hashes = variants.map((v) => hashOf(appendOne(v)));
    for (const [i, h] of hashes.entries()) expect(h, JSON.stringify(variants[i])).not.toBe(reference);
    expect(new Set(hashes).size).toBe(hashes.length);
    expect(hashOf(appendOne(), 'b2')).not.toBe(reference);
    // The base offset: the same batch appended where the log restarted at 5.
    const at5 = hashOf((log) => {
      log.truncateFullyAndStartAt(5);
      appendOne({ baseOffset: 5 })(log);
    });
    const at6 = hashOf((log) => {
      log.truncateFullyAndStartAt(6);
      appendOne({ baseOffset: 5 })(log);
    });
    expect(at5).not.toBe(at6);
  });

  it('a truncation, a restart and a new log start each count, with their offset; no-ops do not', () => {
    const two = (log: PartitionLog) => {
      appendOne({ count: 1 })(log);
      appendOne({ baseOffset: 1, count: 1 })(log);
    };
    const twoHash = hashOf(two);
    const followedBy = (step: (log: PartitionLog) => void) =>
      hashOf((log) => {
        two(log);
        step(log);
      });
    const cut1 = followedBy((log) => log.truncateTo(1));
    const cut0 = followedBy((log) => log.truncateTo(0));
    const restart7 = followedBy((log) => log.truncateFullyAndStartAt(7));
    const restart8 = followedBy((log) => log.truncateFullyAndStartAt(8));
    const start1 = followedBy((log) => log.incrementLogStartOffset(1));
    const start2 = followedBy((log) => log.incrementLogStartOffset(2));
    const all = [twoHash, cut1, cut0, restart7, restart8, start1, start2];
    expect(new Set(all).size).toBe(all.length);
    // Nothing to cut, nothing to move: the fingerprint does not hear of them.
    expect(followedBy((log) => log.truncateTo(2))).toBe(twoHash);
    expect(followedBy((log) => log.truncateTo(5))).toBe(twoHash);
    expect(followedBy((log) => log.incrementLogStartOffset(0))).toBe(twoHash);
  });
});
