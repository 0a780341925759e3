// A consumer group's member timers, one per kind and member, as Kafka's coordinator keys them in its
// CoordinatorTimer (GroupMetadataManager's consumerGroupSessionTimeoutKey, consumerGroupRebalanceTimeoutKey, and
// consumerGroupJoinKey / consumerGroupSyncKey for a classic member's join and sync deadlines): scheduling a key
// replaces its timer, and every timer stops with the group (cancelAll, when the coordinator unloads it).
// Facts: apache/kafka coordinator-common/.../runtime/CoordinatorTimer (schedule, cancel, isScheduled).
import type { Timer } from '../sim/index.ts';

/** The member timers: session, rebalance (revocation), and a classic member's join and sync deadlines. */
export type MemberTimer = 'session' | 'rebalance' | 'join' | 'sync';

const KINDS: readonly MemberTimer[] = ['session', 'rebalance', 'join', 'sync'];

export class MemberTimers {
  /** `kind\u0000memberId` → timer. */
  private readonly timers = new Map<string, Timer>();

  constructor(private readonly schedule: (delay: number, fn: () => void, label: string) => Timer) {}

  /** Replaces the member's timer of this kind; `fn` runs when it fires. */
  set(kind: MemberTimer, memberId: string, delay: number, fn: () => void, label: string): void {
    this.cancel(kind, memberId);
    const key = `${kind}\u0000${memberId}`;
    this.timers.set(
      key,
      this.schedule(
        delay,
        () => {
          this.timers.delete(key);
          fn();
        },
        label,
      ),
    );
  }

  isScheduled(kind: MemberTimer, memberId: string): boolean {
    return this.timers.has(`${kind}\u0000${memberId}`);
  }

  cancel(kind: MemberTimer, memberId: string): void {
    const key = `${kind}\u0000${memberId}`;
    this.timers.get(key)?.cancel();
    this.timers.delete(key);
  }

  /** Every timer of a member that left the group. */
  cancelMember(memberId: string): void {
    for (const kind of KINDS) this.cancel(kind, memberId);
  }

  cancelAll(): void {
    for (const t of this.timers.values()) t.cancel();
    this.timers.clear();
  }
}
