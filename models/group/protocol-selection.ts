// Pure decisions of the classic protocol that do not depend on time: which __consumer_offsets partition (and so
// which coordinator) a group belongs to, and which protocol (assignor) a group uses.
// Facts: Kafka's ClassicGroup.selectProtocol and ClassicGroupMember.vote; Kafka's
// GroupCoordinatorService.partitionFor = Utils.abs(groupId.hashCode()) % offsets.topic.num.partitions.

/** java.lang.String.hashCode over UTF-16 code units, as a signed 32-bit int. */
export function javaStringHashCode(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(h, 31) + s.charCodeAt(i)) | 0;
  return h;
}

/** The __consumer_offsets partition of a group; Utils.abs maps Integer.MIN_VALUE to 0. */
export function partitionForGroup(groupId: string, numPartitions: number): number {
  const h = javaStringHashCode(groupId);
  const abs = h === -2147483648 ? 0 : Math.abs(h);
  return abs % numPartitions;
}

/** Protocols every member supports (ClassicGroup.candidateProtocols). */
export function candidateProtocols(members: readonly { protocols: readonly string[] }[]): Set<string> {
  if (members.length === 0) return new Set();
  const counts = new Map<string, number>();
  for (const m of members) for (const p of new Set(m.protocols)) counts.set(p, (counts.get(p) ?? 0) + 1);
  return new Set([...counts].filter(([, n]) => n === members.length).map(([p]) => p));
}

/**
 * Whether a joining member can be in the group: an empty group takes any non-empty list; otherwise the member
 * must share at least one protocol with those all current members support (else INCONSISTENT_GROUP_PROTOCOL).
 */
export function supportsProtocols(
  members: readonly { protocols: readonly string[] }[],
  joining: readonly string[],
): boolean {
  if (joining.length === 0) return false;
  if (members.length === 0) return true;
  const candidates = candidateProtocols(members);
  return joining.some((p) => candidates.has(p));
}

/**
 * ClassicGroup.selectProtocol: every member votes for the first protocol of its own ordered list that all
 * members support; the most votes wins. Ties go to the first maximum in java.util.HashMap iteration order (the
 * votes map), reproduced by javaHashMapOrder; entries that share a bucket keep the order votes were first cast.
 * Returns null when there is no common protocol.
 */
export function selectProtocol(members: readonly { protocols: readonly string[] }[]): string | null {
  const candidates = candidateProtocols(members);
  if (candidates.size === 0) return null;
  const votes = new Map<string, number>();
  for (const m of members) {
    const vote = m.protocols.find((p) => candidates.has(p))!;
    votes.set(vote, (votes.get(vote) ?? 0) + 1);
  }
  let best: string | null = null;
  let bestVotes = -1;
  for (const name of javaHashMapOrder([...votes.keys()])) {
    const v = votes.get(name)!;
    if (v > bestVotes) {
      best = name;
      bestVotes = v;
    }
  }
  return best;
}

/** Iteration order of a java.util.HashMap<String, ?> holding `keys` inserted in this order (no treeified bins). */
export function javaHashMapOrder(keys: readonly string[]): string[] {
  let capacity = 16;
  while (keys.length > capacity * 0.75) capacity *= 2;
  const bucketOf = (k: string) => {
    const h = javaStringHashCode(k);
    return (h ^ (h >>> 16)) & (capacity - 1);
  };
  return keys
    .map((k, i) => ({ k, i, b: bucketOf(k) }))
    .sort((a, b) => a.b - b.b || a.i - b.i)
    .map((e) => e.k);
}
