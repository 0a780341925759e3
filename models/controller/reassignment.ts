/**
 * Replica reassignment arithmetic, as Kafka's `PartitionReassignmentReplicas` and
 * `PartitionReassignmentRevert` (metadata/src/main/java/org/apache/kafka/controller/, KIP-455):
 * adding = target − current, removing = current − target (both ascending), replicas = target + removing;
 * the reassignment completes when the ISR without the removing replicas contains every remaining replica.
 */
import type { PartitionRegistration } from '../metadata/index.ts';

export interface ReassignmentReplicas {
  readonly replicas: readonly number[];
  readonly adding: readonly number[];
  readonly removing: readonly number[];
}

const ascending = (a: number, b: number) => a - b;

function difference(a: readonly number[], b: readonly number[]): number[] {
  return [...new Set(a)].filter((x) => !b.includes(x)).sort(ascending);
}

/** The replica sets a reassignment from `current` to `target` starts with. */
export function reassignmentReplicas(
  current: readonly number[],
  target: readonly number[],
): ReassignmentReplicas {
  const removing = difference(current, target);
  const adding = difference(target, current);
  return { replicas: [...target, ...removing], adding, removing };
}

export function isReassignmentInProgress(r: {
  removing: readonly number[];
  adding: readonly number[];
}): boolean {
  return r.removing.length > 0 || r.adding.length > 0;
}

/**
 * When `isr` lets the reassignment finish: the final replicas and ISR (the removing replicas dropped from
 * both). Undefined while it must go on.
 */
export function maybeCompleteReassignment(
  state: ReassignmentReplicas,
  isr: readonly number[],
): { replicas: number[]; isr: number[] } | undefined {
  if (!isReassignmentInProgress(state)) return undefined;
  let newIsr = [...isr];
  let newReplicas = [...state.replicas];
  if (state.removing.length > 0) {
    newIsr = isr.filter((r) => !state.removing.includes(r));
    if (newIsr.length === 0) return undefined;
    newReplicas = state.replicas.filter((r) => !state.removing.includes(r));
    if (newReplicas.length === 0) return undefined;
  }
  if (!newReplicas.every((r) => newIsr.includes(r))) return undefined;
  return { replicas: newReplicas, isr: newIsr };
}

/**
 * What cancelling a reassignment goes back to: the replicas without the ones being added, the ISR without
 * them too. If that empties the ISR, the first remaining replica is put back, which is an unclean election.
 */
export function revertReassignment(p: PartitionRegistration): {
  replicas: number[];
  isr: number[];
  unclean: boolean;
} {
  const replicas = p.replicas.filter((r) => !p.addingReplicas.includes(r));
  const isr = p.isr.filter((r) => !p.addingReplicas.includes(r));
  if (isr.length > 0) return { replicas, isr, unclean: false };
  if (replicas.length === 0)
    throw new Error('Invalid replica assignment: addingReplicas contains all replicas.');
  return { replicas, isr: [replicas[0]!], unclean: true };
}
