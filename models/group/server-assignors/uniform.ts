// The server-side uniform assignor (`uniform`, Kafka's default: group-coordinator assignor/UniformAssignor), sticky
// and balanced. Homogeneous groups (every member subscribes to the same topics) follow
// UniformHomogeneousAssignmentBuilder: minQuota = partitions / members, the first `partitions % members` members
// (in member order) may hold one more; each member keeps what its current target holds up to its quota, the
// excess and the unassigned partitions go, in order, to members still under quota.
// Heterogeneous groups: kafkasim keeps each member's subscribed partitions, gives each free partition to the
// least-loaded subscribed member, then moves partitions from the most to the least loaded subscribed member
// while their counts differ by more than one. Kafka's UniformHeterogeneousAssignmentBuilder reaches the same
// balance goal with its own tie-breaks (not reproduced); member order is by member id where Kafka iterates a HashMap.
import { assignmentOf } from './assignment.ts';
import type { GroupSpec, PartitionAssignment, ServerAssignor } from './types.ts';

const sorted = (xs: Iterable<string>) => [...xs].sort();

function topicCount(topicId: string, numPartitions: (topicId: string) => number): number {
  const n = numPartitions(topicId);
  if (n < 0)
    throw new Error(`Members are subscribed to topic ${topicId} which doesn't exist in the topic metadata.`);
  return n;
}

function assignHomogeneous(
  spec: GroupSpec,
  numPartitions: (t: string) => number,
): Record<string, PartitionAssignment> {
  const members = spec.members;
  const topics = sorted(members[0]!.subscribedTopicIds);
  const subscribed = new Set(topics);
  const out: Record<string, PartitionAssignment> = {};
  if (topics.length === 0) {
    for (const m of members) out[m.memberId] = assignmentOf({});
    return out;
  }
  const assigned = new Set<string>();
  for (const m of members)
    for (const t in m.assignment) for (const p of m.assignment[t]!) assigned.add(`${t}:${p}`);
  const unassigned: [string, number][] = [];
  let total = 0;
  for (const t of topics) {
    const n = topicCount(t, numPartitions);
    for (let p = 0; p < n; p++) if (!assigned.has(`${t}:${p}`)) unassigned.push([t, p]);
    total += n;
  }
  const minQuota = Math.floor(total / members.length);
  let extra = total % members.length;
  const kept = new Map<string, Map<string, number[]>>();
  const unfilled: { memberId: string; quota: number }[] = [];
  for (const m of members) {
    let quota = minQuota;
    if (extra > 0) {
      quota++;
      extra--;
    }
    const mine = new Map<string, number[]>();
    for (const t of sorted(Object.keys(m.assignment))) {
      if (!subscribed.has(t)) continue; // no longer subscribed (or the topic is gone): dropped
      const parts = m.assignment[t]!;
      const keep: number[] = [];
      for (const p of parts) {
        if (quota > 0) {
          keep.push(p);
          quota--;
        } else unassigned.push([t, p]);
      }
      if (keep.length > 0) mine.set(t, keep);
    }
    kept.set(m.memberId, mine);
    if (quota > 0) unfilled.push({ memberId: m.memberId, quota });
  }
  let next = 0;
  for (const { memberId, quota } of unfilled) {
    const mine = kept.get(memberId)!;
    for (let i = 0; i < quota && next < unassigned.length; i++) {
      const [t, p] = unassigned[next++]!;
      const list = mine.get(t) ?? [];
      list.push(p);
      mine.set(t, list);
    }
  }
  if (next < unassigned.length) throw new Error('Partitions were left unassigned');
  for (const m of members) out[m.memberId] = assignmentOf(kept.get(m.memberId)!);
  return out;
}

function assignHeterogeneous(
  spec: GroupSpec,
  numPartitions: (t: string) => number,
): Record<string, PartitionAssignment> {
  const members = spec.members;
  const counts = new Map<string, number>();
  const subscribers = new Map<string, string[]>(); // topic → member ids subscribed, in member order
  for (const m of members)
    for (const t of m.subscribedTopicIds) {
      if (!counts.has(t)) counts.set(t, topicCount(t, numPartitions));
      const list = subscribers.get(t) ?? [];
      list.push(m.memberId);
      subscribers.set(t, list);
    }
  const owner = new Map<string, string>(); // `t:p` → member id
  const load = new Map<string, number>(members.map((m) => [m.memberId, 0]));
  for (const m of members) {
    const subs = new Set(m.subscribedTopicIds);
    for (const t of sorted(Object.keys(m.assignment))) {
      if (!subs.has(t)) continue;
      for (const p of m.assignment[t]!) {
        const key = `${t}:${p}`;
        if (p >= counts.get(t)! || owner.has(key)) continue;
        owner.set(key, m.memberId);
        load.set(m.memberId, load.get(m.memberId)! + 1);
      }
    }
  }
  const leastLoaded = (candidates: readonly string[]) => {
    let best = candidates[0]!;
    for (const c of candidates) if (load.get(c)! < load.get(best)!) best = c;
    return best;
  };
  for (const t of sorted(counts.keys())) {
    for (let p = 0; p < counts.get(t)!; p++) {
      const key = `${t}:${p}`;
      if (owner.has(key)) continue;
      const to = leastLoaded(subscribers.get(t)!);
      owner.set(key, to);
      load.set(to, load.get(to)! + 1);
    }
  }
  // Balance: each move lowers the sum of squared loads, so this ends.
  for (;;) {
    let moved = false;
    for (const [key, from] of [...owner].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
      const t = key.slice(0, key.lastIndexOf(':'));
      const to = leastLoaded(subscribers.get(t)!);
      if (load.get(from)! - load.get(to)! > 1) {
        owner.set(key, to);
        load.set(from, load.get(from)! - 1);
        load.set(to, load.get(to)! + 1);
        moved = true;
      }
    }
    if (!moved) break;
  }
  const byMember = new Map<string, Map<string, number[]>>(members.map((m) => [m.memberId, new Map()]));
  for (const [key, m] of owner) {
    const i = key.lastIndexOf(':');
    const t = key.slice(0, i);
    const mine = byMember.get(m)!;
    mine.set(t, [...(mine.get(t) ?? []), Number(key.slice(i + 1))]);
  }
  const out: Record<string, PartitionAssignment> = {};
  for (const m of members) out[m.memberId] = assignmentOf(byMember.get(m.memberId)!);
  return out;
}

export const uniformAssignor: ServerAssignor = {
  name: 'uniform',
  assign(spec, numPartitions) {
    if (spec.members.length === 0) return {};
    return spec.homogeneous
      ? assignHomogeneous(spec, numPartitions)
      : assignHeterogeneous(spec, numPartitions);
  },
};
