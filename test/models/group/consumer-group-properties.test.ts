// Properties of the consumer group protocol (KIP-848) under random joins, heartbeats, slow revocations, leaves,
// crashes, time passing and topic changes: no partition is ever owned by two members at once (the members the
// coordinator still has; a fenced zombie is outside the guarantee, as in Kafka), every member's epoch only grows
// until it is fenced or leaves, the group epoch never goes back, and once the changes stop and every member
// heartbeats, the group settles within a bound derived from the coordinator's configs (the session timeout, for a
// crashed member to be fenced, plus five heartbeat intervals): Stable, every partition owned by exactly one
// member, what clients own equal to what the coordinator assigned.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Errors } from '../../../models/protocol/index.ts';
import { flatten, harness, topicPartitions } from './consumer-group-harness.ts';

const RUNS = { numRuns: Number(process.env.KAFKASIM_PROPERTY_RUNS ?? 300) };

type Op =
  | { op: 'join'; topics: 't' | 'tu'; static: boolean; slow: boolean; assignor: 'uniform' | 'range' | null }
  | { op: 'hb'; i: number }
  | { op: 'leave'; i: number }
  | { op: 'crash'; i: number }
  | { op: 'time'; ms: number }
  | { op: 'grow'; topic: 't' | 'u'; by: number }
  | { op: 'delete-u' };

const arbOp: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant('join' as const),
      topics: fc.constantFrom('t' as const, 'tu' as const),
      static: fc.boolean(),
      slow: fc.boolean(),
      assignor: fc.constantFrom('uniform' as const, 'range' as const, null),
    }),
  },
  { weight: 8, arbitrary: fc.record({ op: fc.constant('hb' as const), i: fc.nat(7) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('leave' as const), i: fc.nat(7) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('crash' as const), i: fc.nat(7) }) },
  {
    weight: 2,
    arbitrary: fc.record({ op: fc.constant('time' as const), ms: fc.integer({ min: 100, max: 20_000 }) }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant('grow' as const),
      topic: fc.constantFrom('t' as const, 'u' as const),
      by: fc.integer({ min: 1, max: 3 }),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ op: 'delete-u' as const }) },
);

interface Client {
  memberId: string;
  epoch: number;
  instanceId: string | null;
  topics: string[];
  slow: boolean;
  assignor: string | null;
  owned: Set<string>;
  /** A slow client applies the assignment it got at its next heartbeat. */
  pending: string[] | undefined;
  gone: boolean;
}

function run(ops: readonly Op[]): void {
  const h = harness({ t: 3, u: 2 });
  const clients: Client[] = [];
  let joined = 0;
  let lastGroupEpoch = 0;
  const live = () => clients.filter((c) => !c.gone);

  const beat = (c: Client) => {
    if (c.pending) {
      c.owned = new Set(c.pending);
      c.pending = undefined;
    }
    const joining = c.epoch === 0;
    const r = h.heartbeat({
      memberId: c.memberId,
      memberEpoch: c.epoch,
      instanceId: c.instanceId,
      rebalanceTimeoutMs: joining ? 300_000 : -1,
      subscribedTopicNames: joining ? c.topics : null,
      serverAssignor: joining ? c.assignor : null,
      topicPartitions: joining ? [] : topicPartitions([...c.owned]),
    });
    if (r.errorCode === Errors.FENCED_MEMBER_EPOCH.code || r.errorCode === Errors.UNKNOWN_MEMBER_ID.code) {
      c.owned.clear(); // onPartitionsLost, then rejoin with epoch 0
      c.pending = undefined;
      c.epoch = 0;
      return;
    }
    expect(r.errorCode, `heartbeat error ${r.errorMessage}`).toBe(0);
    if (c.epoch > 0) expect(r.memberEpoch).toBeGreaterThanOrEqual(c.epoch);
    c.memberId = r.memberId!;
    c.epoch = r.memberEpoch;
    if (r.assignment) {
      const next = flatten(r.assignment.topicPartitions);
      if (c.slow) {
        // Revoke at once is not what a slow member does: it keeps everything until its next poll.
        c.pending = next;
      } else c.owned = new Set(next);
    }
  };

  const check = () => {
    const inGroup = live().filter((c) => h.group.members.has(c.memberId));
    const seen = new Map<string, string>();
    for (const c of inGroup)
      for (const p of c.owned) {
        expect(seen.get(p), `${p} owned by ${seen.get(p)} and ${c.memberId}`).toBeUndefined();
        seen.set(p, c.memberId);
      }
    expect(h.group.groupEpoch).toBeGreaterThanOrEqual(lastGroupEpoch);
    expect(h.group.assignmentEpoch).toBeLessThanOrEqual(h.group.groupEpoch);
    lastGroupEpoch = h.group.groupEpoch;
  };

  /** What the clients own (not what the coordinator believes): every subscribed partition, once each; Stable. */
  const settled = (): boolean => {
    const inGroup = live().filter((c) => h.group.members.has(c.memberId));
    if (inGroup.length !== h.group.members.size || h.group.state !== 'Stable') return false;
    const subscribed = new Set([...h.group.members.values()].flatMap((m) => m.subscribedTopicNames));
    let want = 0;
    for (const [name, meta] of Object.entries(h.group.subscriptionMetadata))
      if (subscribed.has(name)) want += meta.numPartitions;
    const owned = inGroup.flatMap((c) => [...c.owned]);
    return owned.length === want && new Set(owned).size === want;
  };

  const counts = { t: 3, u: 2 };
  // A crashed member, or a static one that left (epoch -2), keeps its partitions until its session expires.
  let heldUntilSession = false;
  for (const o of ops) {
    const cs = live();
    switch (o.op) {
      case 'join': {
        if (cs.length >= 6) break;
        const n = ++joined;
        const c: Client = {
          memberId: '',
          epoch: 0,
          instanceId: o.static ? `i${n}` : null,
          topics: o.topics === 't' ? ['t'] : ['t', 'u'],
          slow: o.slow,
          assignor: o.assignor,
          owned: new Set(),
          pending: undefined,
          gone: false,
        };
        clients.push(c);
        beat(c);
        break;
      }
      case 'hb':
        if (cs.length > 0) beat(cs[o.i % cs.length]!);
        break;
      case 'leave': {
        const c = cs[o.i % Math.max(cs.length, 1)];
        if (!c || c.epoch === 0 || c.memberId === '') break;
        c.owned.clear();
        c.gone = true;
        if (c.instanceId) heldUntilSession = true;
        h.heartbeat({ memberId: c.memberId, memberEpoch: c.instanceId ? -2 : -1, instanceId: c.instanceId });
        break;
      }
      case 'crash': {
        const c = cs[o.i % Math.max(cs.length, 1)];
        if (c) {
          c.owned.clear();
          c.gone = true;
          heldUntilSession = true;
        }
        break;
      }
      case 'time':
        h.sim.runFor(o.ms);
        break;
      case 'grow':
        counts[o.topic] += o.by;
        h.setTopic(o.topic, counts[o.topic]);
        break;
      case 'delete-u':
        h.setTopic('u', counts.u > 0 ? 0 : 2);
        counts.u = counts.u > 0 ? 0 : 2;
        break;
    }
    check();
  }

  // Changes stop; every live member heartbeats at the interval the coordinator gives. The bound on "every
  // partition owned" comes from the configs: a crashed member keeps its partitions until its session expires
  // (group.consumer.session.timeout.ms), then the worst chain is one heartbeat to bump the epoch and compute the
  // target, one for the holder to learn of its revocation, one more for a slow member to apply it (it acts at its
  // next poll) and report it, one for the new owner to get it and one more if that owner is slow: 5 intervals.
  const interval = h.config['group.consumer.heartbeat.interval.ms'];
  const session = h.config['group.consumer.session.timeout.ms'];
  const bound = (heldUntilSession ? session : 0) + 5 * interval;
  const stoppedAt = h.sim.now;
  let settledAt: number | undefined;
  for (let round = 0; round * interval <= bound + 2 * interval; round++) {
    for (const c of live()) beat(c);
    check();
    if (settledAt === undefined && settled()) settledAt = h.sim.now;
    h.sim.runFor(interval);
  }
  for (const c of live()) beat(c);
  check();
  if (h.group.members.size > 0) {
    expect(settledAt, 'every subscribed partition owned by one live client, group Stable').toBeDefined();
    expect(settledAt! - stoppedAt, `settled within ${bound} ms of the last change`).toBeLessThanOrEqual(
      bound,
    );
  }
  const members = [...h.group.members.values()];
  if (members.length === 0) return;
  expect(h.group.state).toBe('Stable');
  const all: string[] = [];
  for (const m of members)
    for (const [topic, ps] of Object.entries(m.assignedPartitions))
      for (const p of ps) all.push(`${topic}:${p}`);
  const subscribed = new Set(members.flatMap((m) => m.subscribedTopicNames));
  const expected: string[] = [];
  for (const [name, meta] of Object.entries(h.group.subscriptionMetadata))
    if (subscribed.has(name))
      for (let p = 0; p < meta.numPartitions; p++) expected.push(`${meta.topicId}:${p}`);
  expect(all.sort()).toEqual(expected.sort());
  for (const c of live()) {
    const m = h.group.members.get(c.memberId);
    if (!m) continue;
    const assigned = Object.entries(m.assignedPartitions).flatMap(([topic, ps]) =>
      ps.map((p) => `${topic}:${p}`),
    );
    expect([...c.owned].sort()).toEqual(assigned.sort());
  }
}

describe('consumer group protocol properties', () => {
  it('no partition has two owners, epochs only grow, and every partition is owned within a bound once changes stop', () => {
    fc.assert(
      fc.property(fc.array(arbOp, { minLength: 1, maxLength: 60 }), (ops) => run(ops)),
      RUNS,
    );
  });
});
