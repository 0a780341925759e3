import { type AssignmentSpace, partitionId, type SpaceMember } from './assignment-space.ts';

// Who claims each partition in its ownedPartitions, and with which generation. Kafka's
// AbstractStickyAssignor.allSubscriptionsEqual resolves double claims in HashMap order: the higher
// generation wins, and a claim in the same generation as another invalidates both. We apply that rule
// order-independently: the unique claimant with the highest generation wins; a tie at the top leaves the
// partition to nobody.

export const NO_CLAIMANT = -1;

export interface Claims {
  /** Winning claimant (member index) per partition id, or NO_CLAIMANT (no claim, or a tie at the top). */
  readonly winner: Int32Array;
  /** 1 where at least one member claims the partition. */
  readonly claimed: Uint8Array;
}

/** `accept` filters which of a member's claims count (e.g. only topics it still subscribes to). */
export function resolveClaims(
  space: AssignmentSpace,
  accept: (member: SpaceMember, topic: string) => boolean,
): Claims {
  const n = space.totalPartitions;
  const winner = new Int32Array(n).fill(NO_CLAIMANT);
  const claimed = new Uint8Array(n);
  const bestGeneration = new Float64Array(n).fill(Number.NEGATIVE_INFINITY);
  const tied = new Uint8Array(n);
  // A member listing a partition twice must not tie with itself.
  const lastClaimant = new Int32Array(n).fill(-1);
  for (const member of space.members) {
    for (const tp of member.ownedPartitions) {
      const id = partitionId(space, tp);
      if (id < 0 || lastClaimant[id] === member.index || !accept(member, tp.topic)) continue;
      lastClaimant[id] = member.index;
      claimed[id] = 1;
      const g = member.generation;
      if (g > bestGeneration[id]!) {
        bestGeneration[id] = g;
        winner[id] = member.index;
        tied[id] = 0;
      } else if (g === bestGeneration[id]) {
        tied[id] = 1;
      }
    }
  }
  for (let id = 0; id < n; id++) if (tied[id]) winner[id] = NO_CLAIMANT;
  return { winner, claimed };
}
