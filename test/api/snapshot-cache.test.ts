// GET /sim/snapshot reuses its serialised answer while the simulation has not moved, and answers a client that
// sends its ETag back 304 Not Modified; anything that moves (the clock, a change, pacing, a rewind) makes a new one.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { simSnapshot, snapshotCacheOf } from '../../src/api/sim/snapshot.ts';
import { type Fixture, fixture } from './fixture.ts';

let f: Fixture;
beforeEach(async () => {
  f = await fixture({ seed: 3, brokers: 3 });
});
afterEach(async () => {
  await f.close();
});

const snapshot = async (etag?: string) => {
  const r = await f.app.inject({
    method: 'GET',
    url: '/sim/snapshot',
    ...(etag ? { headers: { 'if-none-match': etag } } : {}),
  });
  return { status: r.statusCode, etag: String(r.headers.etag), text: r.body };
};

describe('the served snapshot', () => {
  it('is built once while nothing moves, and is 304 for the ETag the client has', async () => {
    const cache = snapshotCacheOf(f.app)!;
    const a = await snapshot();
    expect(a.status).toBe(200);
    expect(a.etag).toMatch(/^"[0-9a-z]+-\d+"$/);
    expect(JSON.parse(a.text)).toEqual(JSON.parse(JSON.stringify(simSnapshot(f.host, f.pacer.status()))));
    const builds = cache.builds;
    const b = await snapshot();
    expect(b).toEqual(a);
    expect(cache.builds).toBe(builds);
    const c = await snapshot(a.etag);
    expect(c.status).toBe(304);
    expect(c.text).toBe('');
    expect(c.etag).toBe(a.etag);
    // Another ETag (an older one, another server's) gets the body.
    expect((await snapshot('"other-1"')).status).toBe(200);
  });

  it('is rebuilt when the clock moves, a change is applied, pacing changes or the world is replaced', async () => {
    const seen = new Set<string>();
    const fresh = async (what: string) => {
      const s = await snapshot();
      expect(s.status, what).toBe(200);
      expect(seen.has(s.etag), what).toBe(false);
      seen.add(s.etag);
      expect(JSON.parse(s.text), what).toEqual(
        JSON.parse(JSON.stringify(simSnapshot(f.host, f.pacer.status()))),
      );
      return JSON.parse(s.text);
    };
    await fresh('at first');
    await f.call('POST', '/sim/advance', { duration: '2s' });
    expect((await fresh('after an advance')).clock.now_ms).toBe(f.host.sim.now);
    await f.call('POST', `${f.base}/topics`, { topic_name: 'orders', partitions_count: 3 });
    expect(Object.keys((await fresh('after a topic create')).metadata.topics)).toContain('orders');
    await f.call('POST', '/sim/workloads', { kind: 'producer', topic: 'orders', rate: 100 });
    expect((await fresh('after a workload')).workloads).toHaveLength(1);
    await f.call('PUT', '/sim/clock/speed', { speed: 10 });
    expect((await fresh('after a speed change')).clock.speed).toBe(10);
    expect((await f.call('POST', '/sim/rewind', { to_ms: 1000 })).status).toBe(200);
    await fresh('after a rewind');
    // A direct change of the host's version (any change applied, even one that leaves the clock alone).
    f.host.version++;
    await fresh('after the host version moved');
  });
});
