// Rewinding, snapshots at an earlier time and branches (src/api/sim/branches.ts): all rebuilt by replaying the
// request log, so a moment shown again is exactly the moment that was: the same trace hash, events, metadata.
import { describe, expect, it } from 'vitest';
import { type Fixture, fixture } from './fixture.ts';

/** What must be equal between two snapshots of the same moment (the pacing and the log length may differ). */
function state(s: Record<string, unknown>) {
  const { clock, requests: _r, ...rest } = s as { clock: { now_ms: number }; requests: number };
  return { now_ms: clock.now_ms, ...rest };
}

/** A short session; returns the moment of the crash (the end of the first advance). */
async function session(f: Fixture): Promise<number> {
  await f.call('POST', `${f.base}/topics`, { topic_name: 'a', partitions_count: 6, replication_factor: 3 });
  await f.call('POST', '/sim/workloads', { kind: 'producer', topic: 'a', rate: 200 });
  const crashAt = (await f.call('POST', '/sim/advance', { duration: '4s' })).body.now_ms as number;
  await f.call('POST', '/sim/faults/crash-broker', { broker_id: 1 });
  await f.call('POST', '/sim/advance', { duration: '6s' });
  return crashAt;
}

describe('rewind, snapshots at a time, branches', () => {
  it('a snapshot at 10 s, a rewind to 10 s and the live snapshot taken at 10 s are the same', async () => {
    const f = await fixture({ seed: 7, brokers: 3 });
    try {
      await session(f);
      const live = (await f.call('GET', '/sim/snapshot')).body;
      const at = live.clock.now_ms as number;
      await f.call('POST', '/sim/advance', { duration: '20s' });
      await f.call('POST', '/sim/faults/restart-broker', { broker_id: 1 });
      await f.call('POST', '/sim/advance', { duration: '5s' });
      const later = (await f.call('GET', '/sim/snapshot')).body;
      expect(later.trace.hash).not.toBe(live.trace.hash);

      const past = await f.call('GET', `/sim/snapshot?at_ms=${at}`);
      expect(past.status).toBe(200);
      expect(state(past.body)).toEqual(state(live));
      // The served simulation was not touched by that read.
      expect((await f.call('GET', '/sim/snapshot')).body.trace.hash).toBe(later.trace.hash);

      const r = await f.call('POST', '/sim/rewind', { to_ms: at });
      expect(r.status).toBe(200);
      expect(r.body.viewing_ms).toBe(at);
      const rewound = (await f.call('GET', '/sim/snapshot')).body;
      expect(state(rewound)).toEqual(state(live));
      // The log served is the one that rebuilds what is served: the changes before 10 s.
      expect(rewound.requests).toBe(live.requests);

      // Forward again to the end: the recorded future is replayed, nothing branched.
      await f.call('POST', '/sim/rewind', { to_ms: later.clock.now_ms });
      const again = (await f.call('GET', '/sim/snapshot')).body;
      expect(state(again)).toEqual(state(later));
      expect((await f.call('GET', '/sim/branches')).body.branches).toHaveLength(1);
      // Not past the furthest moment reached.
      const beyond = await f.call('POST', '/sim/rewind', { to_ms: later.clock.now_ms + 1 });
      expect(beyond.status).toBe(400);
      expect(beyond.body.message).toMatch(/reached only/);
    } finally {
      await f.close();
    }
  }, 120_000);

  it('a rewind into the middle of an advance stops there: the same moment as a run that advanced only that far', async () => {
    const long = await fixture({ seed: 7, brokers: 3 });
    const short = await fixture({ seed: 7, brokers: 3 });
    try {
      const crashAt = await session(long);
      expect(await session(short)).toBe(crashAt);
      // long: 30 s more in one advance; short: 12 s.
      await long.call('POST', '/sim/advance', { duration: '30s' });
      await short.call('POST', '/sim/advance', { duration: '12s' });
      const at = (await short.call('GET', '/sim/snapshot')).body;
      const r = await long.call('POST', '/sim/rewind', { to_ms: at.clock.now_ms });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      const back = (await long.call('GET', '/sim/snapshot')).body;
      expect(back.clock.now_ms).toBe(at.clock.now_ms);
      expect(state(back)).toEqual(state(at));
      // The snapshot at that moment from a replay beside the served one says the same.
      const past = (await long.call('GET', `/sim/snapshot?at_ms=${at.clock.now_ms}`)).body;
      expect(state(past)).toEqual(state(at));
    } finally {
      await long.close();
      await short.close();
    }
  }, 120_000);

  it('a change made at an earlier moment starts a branch; both branches keep their own future', async () => {
    const f = await fixture({ seed: 7, brokers: 3 });
    try {
      const crashAt = await session(f);
      await f.call('POST', '/sim/advance', { duration: '10s' });
      const mainEnd = (await f.call('GET', '/sim/snapshot')).body;
      // Back to the moment of the crash, before it: broker 1 is up again.
      await f.call('POST', '/sim/rewind', { to_ms: crashAt });
      expect((await f.call('GET', '/sim/snapshot')).body.brokers[1].status).toBe('up');
      // A different fault there: a new branch from that moment.
      expect((await f.call('POST', '/sim/faults/crash-broker', { broker_id: 2 })).status).toBe(200);
      await f.call('POST', '/sim/advance', { duration: mainEnd.clock.now_ms - crashAt });
      const b = (await f.call('GET', '/sim/branches')).body;
      expect(b.branches.map((x: { id: number; parent: number | null }) => [x.id, x.parent])).toEqual([
        [1, null],
        [2, 1],
      ]);
      expect(b.active).toBe(2);
      expect(b.branches[1].forked_at_ms).toBe(crashAt);
      const branchEnd = (await f.call('GET', '/sim/snapshot')).body;
      expect(branchEnd.clock.now_ms).toBe(mainEnd.clock.now_ms);
      // Side by side at the same moment: they differ (broker 2 is down in one, broker 1 in the other).
      const one = (await f.call('GET', `/sim/branches/1/snapshot?at_ms=${mainEnd.clock.now_ms}`)).body;
      const two = (await f.call('GET', `/sim/branches/2/snapshot?at_ms=${mainEnd.clock.now_ms}`)).body;
      expect(state(one)).toEqual(state(mainEnd));
      expect(state(two)).toEqual(state(branchEnd));
      const status = (s: { brokers: { broker_id: number; status: string }[] }) =>
        s.brokers.map((x) => `${x.broker_id}:${x.status}`);
      expect(status(one)).toEqual(['0:up', '1:crashed', '2:up']);
      expect(status(two)).toEqual(['0:up', '1:up', '2:crashed']);
      // Switching back rebuilds main at its furthest moment, exactly.
      const co = await f.call('POST', '/sim/branches/1/checkout');
      expect(co.body.active).toBe(1);
      expect(state((await f.call('GET', '/sim/snapshot')).body)).toEqual(state(mainEnd));
      // An explicit fork with a name, at a moment.
      const fork = await f.call('POST', '/sim/branches', { at_ms: crashAt, name: 'early' });
      expect(fork.body.branches.at(-1)).toMatchObject({ name: 'early', parent: 1, forked_at_ms: crashAt });
      expect((await f.call('GET', '/sim/snapshot')).body.clock.now_ms).toBe(crashAt);
    } finally {
      await f.close();
    }
  }, 120_000);

  it('refuses bad input with a message and leaves everything as it was', async () => {
    const f = await fixture({ seed: 7, brokers: 3 });
    try {
      await session(f);
      const before = (await f.call('GET', '/sim/snapshot')).body;
      for (const [method, url, body, status] of [
        ['POST', '/sim/rewind', { to_ms: -1 }, 400],
        ['POST', '/sim/rewind', { to: 5 }, 400],
        ['POST', '/sim/branches/9/checkout', undefined, 404],
        ['GET', '/sim/branches/9/snapshot?at_ms=0', undefined, 404],
        ['GET', '/sim/snapshot?at_ms=abc', undefined, 400],
        ['GET', `/sim/snapshot?at_ms=${before.clock.now_ms + 1000}`, undefined, 400],
        ['POST', '/sim/branches', { name: '' }, 400],
      ] as const) {
        const r = await f.call(method, url, body);
        expect(r.status, `${method} ${url}`).toBe(status);
        expect(typeof r.body.message).toBe('string');
      }
      expect(state((await f.call('GET', '/sim/snapshot')).body)).toEqual(state(before));
    } finally {
      await f.close();
    }
  }, 60_000);
});
