import { type AssignmentSpace, buildSpace, toAssignment, topicOfIds } from './assignment-space.ts';
import { IndexedHeap } from './indexed-heap.ts';
import { resolveClaims } from './owned-claims.ts';
import type { AssignInput, Assignor, TopicPartition } from './types.ts';

// Kafka's StickyAssignor (AbstractStickyAssignor.java), without rack awareness. Goal 1 is balance, goal 2
// keeping partitions with their previous owners (KIP-54).
//
// Previous owners come from ownedPartitions + generation; a claim counts only if the member still
// subscribes to the topic and the partition exists, and double claims are settled by owned-claims.ts.
// Kafka settles them before dropping unsubscribed claims; we drop first, so a stale member that no longer
// subscribes cannot take a partition away from a current one.
//
// Equal subscriptions: Kafka's ConstrainedAssignmentBuilder, step for step, with members visited in
// member-id order where Kafka uses HashMap order (this decides which members may keep maxQuota).
// Unequal subscriptions: our own algorithm with the guarantee Kafka's GeneralAssignmentBuilder aims for:
//   1. keep every valid claim;
//   2. hand out the rest topic by topic (topics with fewest subscribers first, as Kafka's TopicComparator),
//      each partition to the subscriber with fewest partitions (ties: lowest member id);
//   3. move partitions of topic T from the T-holder with most partitions to the T-subscriber with fewest
//      while they differ by two or more (ties: lowest member id), the latest placed of its fresh partitions first,
//      else its highest kept one; first only partitions that nobody kept, then any; over every topic again
//      until no move is left.
// The result has no such move left (Kafka's "balanced" test), so members with the same subscriptions end
// within one partition of each other. Kafka's PartitionMovements cycle-avoidance is not modelled.

/** Partition ids per member index (space.members order). */
export function stickyAssignIds(space: AssignmentSpace): number[][] {
  const members = space.members;
  if (members.length === 0) return [];
  const claims = resolveClaims(space, (member, topic) => member.subscription.has(topic));
  const first = members[0]!.subscription;
  const allEqual = members.every(
    (m) => m.subscription.size === first.size && [...m.subscription].every((t) => first.has(t)),
  );
  return allEqual
    ? constrainedAssign(space, claims.winner, members[0]!.topicIndices)
    : generalAssign(space, claims.winner);
}

function constrainedAssign(
  space: AssignmentSpace,
  owner: Int32Array,
  topicIndices: readonly number[],
): number[][] {
  const n = space.members.length;
  const topicOf = topicOfIds(space);
  const partitionOf = (id: number) => id - space.offsets[topicOf[id]!]!;
  let total = 0;
  for (const t of topicIndices) total += space.partitionCounts[t]!;

  const owned: number[][] = space.members.map(() => []);
  for (let id = 0; id < owner.length; id++) if (owner[id]! >= 0) owned[owner[id]!]!.push(id);

  const minQuota = Math.floor(total / n);
  const maxQuota = Math.ceil(total / n);
  const expectedOverMin = total % n;
  let currentOverMin = 0;

  const assignment: number[][] = [];
  const assigned = new Uint8Array(space.totalPartitions);
  const underMin: number[] = [];
  let exactlyMin: number[] = [];

  for (let m = 0; m < n; m++) {
    // Kafka keeps the lowest partition numbers first, across topics.
    const mine = owned[m]!.sort((a, b) => partitionOf(a) - partitionOf(b) || topicOf[a]! - topicOf[b]!);
    let keep: number[];
    if (mine.length < minQuota) {
      keep = mine;
      underMin.push(m);
    } else if (mine.length >= maxQuota && currentOverMin < expectedOverMin) {
      currentOverMin++;
      if (currentOverMin === expectedOverMin) exactlyMin = [];
      keep = mine.slice(0, maxQuota);
    } else {
      keep = mine.slice(0, minQuota);
      if (currentOverMin < expectedOverMin) exactlyMin.push(m);
    }
    for (const id of keep) assigned[id] = 1;
    assignment.push(keep);
  }

  // Round-robin over the under-filled members (a pass drops those that reach minQuota), then one each to
  // the members at exactly minQuota, in order, as ConstrainedAssignmentBuilder.assignRoundRobin.
  let pass = underMin;
  let nextPass: number[] = [];
  let cursor = 0;
  let exactHead = 0;
  for (const t of topicIndices) {
    const base = space.offsets[t]!;
    const count = space.partitionCounts[t]!;
    for (let id = base; id < base + count; id++) {
      if (assigned[id]) continue;
      let m: number;
      let fromUnder = true;
      if (cursor < pass.length) {
        m = pass[cursor++]!;
      } else if (nextPass.length > 0) {
        pass = nextPass;
        nextPass = [];
        cursor = 0;
        m = pass[cursor++]!;
      } else if (exactHead < exactlyMin.length) {
        m = exactlyMin[exactHead++]!;
        fromUnder = false;
      } else {
        throw new Error('sticky assignor: no member left below its quota (assignor bug)');
      }
      const list = assignment[m]!;
      list.push(id);
      if (list.length === minQuota) {
        exactlyMin.push(m);
      } else if (fromUnder) {
        nextPass.push(m);
      }
    }
  }
  return assignment;
}

function generalAssign(space: AssignmentSpace, owner: Int32Array): number[][] {
  const members = space.members;
  const topicCount = space.topics.length;
  const count = new Int32Array(members.length);

  const subscribers: number[][] = Array.from({ length: topicCount }, () => []);
  for (const m of members) for (const t of m.topicIndices) subscribers[t]!.push(m.index);
  const topicOrder: number[] = [];
  for (let t = 0; t < topicCount; t++) {
    if (subscribers[t]!.length > 0 && space.partitionCounts[t]! > 0) topicOrder.push(t);
  }
  topicOrder.sort((a, b) => subscribers[a]!.length - subscribers[b]!.length || a - b);

  // Per topic and subscriber (local index): partitions kept from a claim, and partitions newly placed.
  const localOf: Map<number, number>[] = subscribers.map((subs) => new Map(subs.map((m, l) => [m, l])));
  const kept: number[][][] = subscribers.map((subs) => subs.map(() => []));
  const fresh: number[][][] = subscribers.map((subs) => subs.map(() => []));

  const topicOf = topicOfIds(space);
  for (let id = 0; id < owner.length; id++) {
    const m = owner[id]!;
    if (m < 0) continue;
    const t = topicOf[id]!;
    kept[t]![localOf[t]!.get(m)!]!.push(id);
    count[m]!++;
  }

  for (const t of topicOrder) {
    const subs = subscribers[t]!;
    const byFewest = new IndexedHeap(subs.length, (a, b) => {
      const ma = subs[a]!;
      const mb = subs[b]!;
      return count[ma]! < count[mb]! || (count[ma] === count[mb] && ma < mb);
    });
    for (let l = 0; l < subs.length; l++) byFewest.push(l);
    const base = space.offsets[t]!;
    for (let id = base; id < base + space.partitionCounts[t]!; id++) {
      if (owner[id]! >= 0) continue;
      const l = byFewest.peek();
      owner[id] = subs[l]!;
      fresh[t]![l]!.push(id);
      count[subs[l]!]!++;
      byFewest.update(l);
    }
  }

  for (const freshOnly of [true, false]) {
    let moved = true;
    while (moved) {
      moved = false;
      for (const t of topicOrder) {
        if (levelTopic(subscribers[t]!, kept[t]!, fresh[t]!, count, owner, freshOnly)) moved = true;
      }
    }
  }

  const result: number[][] = members.map(() => []);
  for (let id = 0; id < owner.length; id++) if (owner[id]! >= 0) result[owner[id]!]!.push(id);
  return result;
}

/**
 * Moves partitions of one topic from its fullest holder to its emptiest subscriber while their counts
 * differ by two or more. Only this topic's subscribers change counts meanwhile, so heaps over them stay valid.
 */
function levelTopic(
  subs: readonly number[],
  kept: number[][],
  fresh: number[][],
  count: Int32Array,
  owner: Int32Array,
  freshOnly: boolean,
): boolean {
  if (subs.length < 2) return false;
  const movable = (l: number) => fresh[l]!.length + (freshOnly ? 0 : kept[l]!.length);
  const donors = new IndexedHeap(subs.length, (a, b) => {
    const ma = subs[a]!;
    const mb = subs[b]!;
    return count[ma]! > count[mb]! || (count[ma] === count[mb] && ma < mb);
  });
  const receivers = new IndexedHeap(subs.length, (a, b) => {
    const ma = subs[a]!;
    const mb = subs[b]!;
    return count[ma]! < count[mb]! || (count[ma] === count[mb] && ma < mb);
  });
  for (let l = 0; l < subs.length; l++) {
    receivers.push(l);
    if (movable(l) > 0) donors.push(l);
  }
  let moved = false;
  while (donors.size > 0) {
    const d = donors.peek();
    const r = receivers.peek();
    if (count[subs[d]!]! <= count[subs[r]!]! + 1) break;
    const id = fresh[d]!.length > 0 ? fresh[d]!.pop()! : kept[d]!.pop()!;
    owner[id] = subs[r]!;
    fresh[r]!.push(id);
    count[subs[d]!]!--;
    count[subs[r]!]!++;
    moved = true;
    if (movable(d) === 0) donors.remove(d);
    else donors.update(d);
    if (donors.has(r)) donors.update(r);
    else donors.push(r);
    receivers.update(d);
    receivers.update(r);
  }
  return moved;
}

export function assignSticky(input: AssignInput): Record<string, TopicPartition[]> {
  const space = buildSpace(input);
  return toAssignment(space, stickyAssignIds(space));
}

export function stickyAssignor(): Assignor {
  return { name: 'sticky', rebalanceProtocols: ['EAGER'], assign: assignSticky };
}

export const sticky: Assignor = stickyAssignor();
