import { buildSpace, toAssignment } from './assignment-space.ts';
import { NO_CLAIMANT, resolveClaims } from './owned-claims.ts';
import { stickyAssignIds } from './sticky.ts';
import type { AssignInput, Assignor, TopicPartition } from './types.ts';

// Kafka's CooperativeStickyAssignor: the sticky assignment, minus every partition that would change owner
// in this rebalance (CooperativeStickyAssignor.adjustAssignment). The old owner sees the partition missing
// from its assignment, revokes it and rejoins; the next rebalance gives it to the new owner
// (KIP-429). Partitions that do not move are never revoked.
//
// A partition stays in member X's assignment only if no member claims it in ownedPartitions, or X is the
// claimant with the strictly highest generation. Any other claimant, including a stale one or one no longer
// subscribed, is taken to still hold it until it revokes: like Kafka's computePartitionsTransferringOwnership,
// which counts every member's ownedPartitions, and like its constrained path, which also withholds a
// partition claimed twice in one generation.

export function assignCooperativeSticky(input: AssignInput): Record<string, TopicPartition[]> {
  const space = buildSpace(input);
  const sticky = stickyAssignIds(space);
  const { winner, claimed } = resolveClaims(space, () => true);
  const adjusted = sticky.map((ids, m) =>
    ids.filter((id) => claimed[id] === 0 || (winner[id] !== NO_CLAIMANT && winner[id] === m)),
  );
  return toAssignment(space, adjusted);
}

export function cooperativeStickyAssignor(): Assignor {
  return {
    name: 'cooperative-sticky',
    rebalanceProtocols: ['COOPERATIVE', 'EAGER'],
    assign: assignCooperativeSticky,
  };
}

export const cooperativeSticky: Assignor = cooperativeStickyAssignor();
