import { describe, expect, it } from 'vitest';
import {
  emptyImage,
  LocalMetadataLog,
  type MetadataRecord,
  replay,
  type Scheduler,
} from '../../../models/metadata/index.ts';
import { register } from './fixtures.ts';

/** Runs callbacks in (time, insertion) order, as the kernel does. */
class FakeScheduler implements Scheduler {
  now = 0;
  #seq = 0;
  #queue: { at: number; seq: number; fn: () => void; cancelled: boolean }[] = [];

  schedule(delayMs: number, fn: () => void): { cancel(): void } {
    const task = { at: this.now + delayMs, seq: this.#seq++, fn, cancelled: false };
    this.#queue.push(task);
    return {
      cancel: () => {
        task.cancelled = true;
      },
    };
  }

  get pending(): number {
    return this.#queue.filter((t) => !t.cancelled).length;
  }

  /** Runs every callback due at or before `until` and leaves the clock there. */
  runUntil(until: number): void {
    for (;;) {
      this.#queue.sort((a, b) => a.at - b.at || a.seq - b.seq);
      const next = this.#queue[0];
      if (next === undefined || next.at > until) break;
      this.#queue.shift();
      this.now = next.at;
      if (!next.cancelled) next.fn();
    }
    this.now = until;
  }
}

const noop: MetadataRecord = { type: 'NoOpRecord' };

describe('LocalMetadataLog', () => {
  it('assigns consecutive offsets per batch and reports endOffset', () => {
    const log = new LocalMetadataLog({ scheduler: new FakeScheduler() });
    expect(log.endOffset).toBe(0);
    expect(log.committedOffset).toBe(-1);
    expect(log.append([noop, noop, noop])).toEqual({ baseOffset: 0, lastOffset: 2 });
    expect(log.append([noop])).toEqual({ baseOffset: 3, lastOffset: 3 });
    expect(log.endOffset).toBe(4);
  });

  it('with the default delay commits at the next event, never inside append', () => {
    const scheduler = new FakeScheduler();
    const log = new LocalMetadataLog({ scheduler });
    const seen: number[] = [];
    log.onCommit((offset) => seen.push(offset));
    log.append([noop, noop]);
    expect(log.committedOffset).toBe(-1);
    expect(log.readCommitted(0)).toEqual([]);
    expect(seen).toEqual([]);
    scheduler.runUntil(0);
    expect(log.committedOffset).toBe(1);
    expect(seen).toEqual([1]);
    expect(log.readCommitted(0).map((e) => e.offset)).toEqual([0, 1]);
  });

  it('commits each batch commitDelayMs after its append, in append order', () => {
    const scheduler = new FakeScheduler();
    const log = new LocalMetadataLog({ scheduler, commitDelayMs: 10 });
    const seen: [number, number][] = [];
    log.onCommit((offset) => seen.push([scheduler.now, offset]));
    log.append([noop, noop]); // 0..1 at t=0
    scheduler.runUntil(4);
    log.append([noop]); // 2 at t=4
    log.append([noop, noop, noop]); // 3..5 at t=4
    scheduler.runUntil(9);
    expect(log.committedOffset).toBe(-1);
    scheduler.runUntil(10);
    expect(log.committedOffset).toBe(1);
    expect(log.readCommitted(0).length).toBe(2);
    scheduler.runUntil(13);
    expect(log.committedOffset).toBe(1);
    scheduler.runUntil(14);
    expect(seen).toEqual([
      [10, 1],
      [14, 2],
      [14, 5],
    ]);
    expect(log.committedOffset).toBe(5);
  });

  it('commits in order even if a scheduler runs equal-time callbacks in reverse', () => {
    const tasks: (() => void)[] = [];
    const scheduler: Scheduler = {
      now: 0,
      schedule: (_delay, fn) => {
        tasks.push(fn);
        return { cancel: () => {} };
      },
    };
    const log = new LocalMetadataLog({ scheduler });
    const seen: number[] = [];
    log.onCommit((offset) => seen.push(offset));
    log.append([noop]);
    log.append([noop, noop]);
    for (const fn of tasks.reverse()) fn();
    // The later batch's commit covers the earlier one; the committed offset never goes back.
    expect(seen).toEqual([2]);
    expect(log.committedOffset).toBe(2);
  });

  it('readCommitted pages from an offset with maxEntries and never returns uncommitted entries', () => {
    const scheduler = new FakeScheduler();
    const log = new LocalMetadataLog({ scheduler, commitDelayMs: 5 });
    log.append([register(1), register(2), register(3)]);
    scheduler.runUntil(5);
    log.append([noop]);
    expect(log.readCommitted(1).map((e) => e.offset)).toEqual([1, 2]);
    expect(log.readCommitted(0, 2).map((e) => e.offset)).toEqual([0, 1]);
    expect(log.readCommitted(2, 10).map((e) => e.record.type)).toEqual(['RegisterBrokerRecord']);
    expect(log.readCommitted(3)).toEqual([]);
    expect(log.readCommitted(0, 0)).toEqual([]);
    expect(() => log.readCommitted(-1)).toThrow(/fromOffset/);
  });

  it('stores a frozen copy of the records, so the writer cannot change what replayers read', () => {
    const scheduler = new FakeScheduler();
    const log = new LocalMetadataLog({ scheduler });
    const replicas = [1, 2];
    const record = {
      type: 'PartitionChangeRecord' as const,
      topicId: 'x',
      partitionId: 0,
      replicas,
    };
    log.append([record]);
    scheduler.runUntil(0);
    replicas.push(3);
    const [entry] = log.readCommitted(0);
    expect(entry!.record).toEqual({ ...record, replicas: [1, 2] });
    expect(Object.isFrozen(entry!.record)).toBe(true);
    expect(Object.isFrozen(replicas)).toBe(false);
  });

  it('onCommit unsubscribes, and an unsubscribed listener is not called later in the same round', () => {
    const scheduler = new FakeScheduler();
    const log = new LocalMetadataLog({ scheduler });
    const calls: string[] = [];
    let unsubscribeB = () => {};
    const unsubscribeA = log.onCommit(() => {
      calls.push('a');
      unsubscribeB();
    });
    unsubscribeB = log.onCommit(() => calls.push('b'));
    log.append([noop]);
    scheduler.runUntil(0);
    expect(calls).toEqual(['a']);
    unsubscribeA();
    log.append([noop]);
    scheduler.runUntil(0);
    expect(calls).toEqual(['a']);
  });

  it('rejects an empty batch and a negative delay', () => {
    const scheduler = new FakeScheduler();
    expect(() => new LocalMetadataLog({ scheduler, commitDelayMs: -1 })).toThrow(/commitDelayMs/);
    const log = new LocalMetadataLog({ scheduler });
    expect(() => log.append([])).toThrow(/at least one record/);
    expect(log.endOffset).toBe(0);
    expect(scheduler.pending).toBe(0);
  });

  it('feeds a replayer that follows the committed offset', () => {
    const scheduler = new FakeScheduler();
    const log = new LocalMetadataLog({ scheduler, commitDelayMs: 3 });
    let image = emptyImage();
    log.onCommit(() => {
      image = replay(image, log.readCommitted(image.offset + 1));
    });
    log.append([register(1), register(2)]);
    log.append([{ type: 'BrokerRegistrationChangeRecord', brokerId: 2, brokerEpoch: 1, fenced: -1 }]);
    scheduler.runUntil(3);
    expect(image.offset).toBe(2);
    expect(Object.keys(image.brokers)).toEqual(['1', '2']);
    expect(image.brokers[2]!.fenced).toBe(false);
  });
});
