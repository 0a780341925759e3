// forgetDeletedAcknowledged (AcknowledgedInIsr's memory over long runs): the acknowledged batches wholly below the
// lowest log start of the members go, in bulk (1,024 at least, or half the list), and each member's progress moves
// back by as many, so that the batches acknowledged next are still verified.
import { describe, expect, it } from 'vitest';
import {
  type AcknowledgedBatch,
  type AcknowledgedProgress,
  forgetDeletedAcknowledged,
} from '../../../models/broker/log-agreement.ts';
import type { LogView } from '../../../models/broker/replica-view.ts';

/** `n` acknowledged batches of 10 records, at offsets 0, 10, 20, ... */
const acks = (n: number): AcknowledgedBatch[] =>
  Array.from({ length: n }, (_, i) => ({
    topic: 't',
    partition: 0,
    baseOffset: 10 * i,
    count: 10,
    origin: 'p',
    firstIndex: 10 * i,
  }));

const member = (id: number, logStartOffset: number | undefined, verified: number) => ({
  id,
  verified,
  anchor: undefined,
  log:
    logStartOffset === undefined
      ? undefined
      : ({ logStartOffset, logEndOffset: 1e9, highWatermark: 1e9, watcher: undefined } as unknown as LogView),
});

describe('forgetDeletedAcknowledged', () => {
  it('drops the batches below the lowest log start once half the list can go, and moves progress back', () => {
    const acked = acks(10);
    const members = [member(1, 60, 10), member(2, 55, 10)];
    // Lowest start 55: batches 0..49 lie wholly below it (5 of 10, half the list); 50..59 holds it and stays.
    forgetDeletedAcknowledged(acked, members);
    expect(acked.map((a) => a.baseOffset)).toEqual([50, 60, 70, 80, 90]);
    expect(members.map((m) => m.verified)).toEqual([5, 5]);
  });

  it('waits while fewer than 1,024 and less than half can go; then takes them all at once', () => {
    const acked = acks(2000);
    const members: (AcknowledgedProgress & { log: LogView | undefined })[] = [member(1, 10 * 999, 2000)];
    forgetDeletedAcknowledged(acked, members);
    expect(acked).toHaveLength(2000); // 999 below: neither 1,024 nor half
    members[0] = member(1, 10 * 1024, 2000);
    forgetDeletedAcknowledged(acked, members);
    expect(acked).toHaveLength(2000 - 1024);
    expect(acked[0]!.baseOffset).toBe(10 * 1024);
    expect(members[0]!.verified).toBe(2000 - 1024);
  });

  it('keeps everything while a member has no log (start 0) or there are no members', () => {
    const acked = acks(10);
    forgetDeletedAcknowledged(acked, [member(1, 100, 10), member(2, undefined, 10)]);
    expect(acked).toHaveLength(10);
    forgetDeletedAcknowledged(acked, []);
    expect(acked).toHaveLength(10);
  });
});
