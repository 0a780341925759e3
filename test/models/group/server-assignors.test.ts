// The consumer protocol's server-side assignors: uniform (sticky, balanced within one) and range (contiguous,
// co-partitioned), each on examples and with fast-check over random groups.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type GroupSpec,
  type PartitionAssignment,
  partitionCount,
  serverRangeAssignor,
  uniformAssignor,
} from '../../../models/group/index.ts';

const counts: Record<string, number> = { A: 7, B: 3 };
const numPartitions = (t: string) => counts[t] ?? -1;
const member = (
  memberId: string,
  topics: string[],
  assignment: PartitionAssignment = {},
  instanceId: string | null = null,
) => ({
  memberId,
  instanceId,
  subscribedTopicIds: topics,
  assignment,
});

describe('uniform', () => {
  it('homogeneous: balanced, and a member keeps what it had up to its quota', () => {
    const spec: GroupSpec = {
      homogeneous: true,
      members: [member('a', ['A', 'B'], { A: [0, 1, 2, 3, 4, 5, 6], B: [0, 1, 2] }), member('b', ['A', 'B'])],
    };
    const r = uniformAssignor.assign(spec, numPartitions);
    // 10 partitions, 2 members: 5 each; a keeps its first five (A0-A4), b gets the rest.
    expect(r.a).toEqual({ A: [0, 1, 2, 3, 4] });
    expect(r.b).toEqual({ A: [5, 6], B: [0, 1, 2] });
  });

  it('heterogeneous: only subscribed topics, balanced where subscriptions allow', () => {
    const spec: GroupSpec = {
      homogeneous: false,
      members: [member('a', ['A', 'B']), member('b', ['B']), member('c', ['A'])],
    };
    const r = uniformAssignor.assign(spec, numPartitions);
    expect(r.b!.A).toBeUndefined();
    expect(r.c!.B).toBeUndefined();
    const sizes = Object.values(r).map(partitionCount);
    expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
  });

  it('properties: complete, disjoint, balanced within one (homogeneous), sticky for a member that stays', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 8 }), fc.integer({ min: 0, max: 20 }), (members, parts) => {
        const c = (t: string) => (t === 'T' ? parts : -1);
        const ids = Array.from({ length: members }, (_, i) => `m${i}`);
        const first = uniformAssignor.assign(
          { homogeneous: true, members: ids.map((id) => member(id, ['T'])) },
          c,
        );
        const check = (r: Record<string, PartitionAssignment>) => {
          const all = Object.values(r).flatMap((a) => a.T ?? []);
          expect(all.sort((x, y) => x - y)).toEqual(Array.from({ length: parts }, (_, i) => i));
          const sizes = Object.values(r).map(partitionCount);
          expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
        };
        check(first);
        // One more member: everyone keeps at least min(previous, new quota) of what it had.
        const more = [...ids, 'zz'];
        const second = uniformAssignor.assign(
          { homogeneous: true, members: more.map((id) => member(id, ['T'], first[id] ?? {})) },
          c,
        );
        check(second);
        for (const id of ids) {
          const kept = (second[id]!.T ?? []).filter((p) => (first[id]!.T ?? []).includes(p)).length;
          expect(kept).toBeGreaterThanOrEqual(
            Math.min(partitionCount(first[id]!), Math.floor(parts / more.length)),
          );
        }
      }),
      { numRuns: 200 },
    );
  });
});

describe('range (server side)', () => {
  it('contiguous ranges per topic, static members first, extra partitions to the first members', () => {
    const spec: GroupSpec = {
      homogeneous: true,
      members: [member('a', ['A', 'B']), member('b', ['A', 'B'], {}, 'zz'), member('c', ['A', 'B'])],
    };
    const r = serverRangeAssignor.assign(spec, numPartitions);
    expect(r.b).toEqual({ A: [0, 1, 2], B: [0] });
    expect(r.a).toEqual({ A: [3, 4], B: [1] });
    expect(r.c).toEqual({ A: [5, 6], B: [2] });
  });

  it('a subscription to a topic that does not exist is an error', () => {
    expect(() =>
      serverRangeAssignor.assign({ homogeneous: true, members: [member('a', ['X'])] }, numPartitions),
    ).toThrow('non-existent topic');
  });
});
