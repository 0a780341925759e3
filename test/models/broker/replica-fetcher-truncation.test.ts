// Where a follower truncates on a diverging epoch (KIP-320), as AbstractFetcherThread.getOffsetTruncationState.
import { describe, expect, it } from 'vitest';
import { truncationFor } from '../../../models/broker/replica-fetcher.ts';
import { PartitionLog, type RecordBatch } from '../../../models/storage/index.ts';

function batch(baseOffset: number, count: number, epoch: number): RecordBatch {
  return {
    baseOffset,
    count,
    bytes: 100,
    producerId: -1,
    producerEpoch: -1,
    baseSequence: -1,
    origin: 'p',
    runs: [{ index: baseOffset, count, time: 0 }],
    partitionLeaderEpoch: epoch,
    appendTime: 0,
  };
}

describe('truncationFor', () => {
  it('the follower has the epoch the leader answered with: both agree up to the smaller end, done', () => {
    expect(truncationFor({ epoch: 2, endOffset: 90 }, { epoch: 2, endOffset: 70 })).toEqual({
      offset: 70,
      complete: true,
    });
    expect(truncationFor({ epoch: 2, endOffset: 60 }, { epoch: 2, endOffset: 70 })).toEqual({
      offset: 60,
      complete: true,
    });
  });

  it('the follower lacks that epoch: it cuts to the end of its own largest epoch below, and asks again', () => {
    // Follower: epoch 0 at 0..99, epoch 2 from 100. Leader: epoch 0 at 0..49, epoch 1 at 50..119, epoch 3 from 120.
    // Asked about epoch 2, the leader answers (epoch 1, ends at 120); offsets 50..99 differ between the two logs.
    const follower = new PartitionLog('t', 0);
    follower.appendAsFollower([batch(0, 50, 0), batch(50, 50, 0), batch(100, 10, 2)]);
    const leaderAnswer = { epoch: 1, endOffset: 120 };
    const first = truncationFor(follower.endOffsetForEpoch(leaderAnswer.epoch), leaderAnswer);
    expect(first).toEqual({ offset: 100, complete: false });
    follower.truncateTo(first.offset);
    // Asked again about epoch 0, the leader answers (epoch 0, ends at 50): now the logs agree below 50.
    const second = truncationFor(follower.endOffsetForEpoch(0), { epoch: 0, endOffset: 50 });
    expect(second).toEqual({ offset: 50, complete: true });
  });

  it('no common epoch at all: back to the start', () => {
    expect(truncationFor({ epoch: -1, endOffset: -1 }, { epoch: -1, endOffset: -1 })).toEqual({
      offset: 0,
      complete: true,
    });
  });
});
