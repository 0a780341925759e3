// A group member's side of the classic protocol, run by the consumer client: Unjoined → Preparing
// (onJoinPrepare: commit, revoke callbacks, which a rebalance listener may hold) → Joining (JoinGroup in flight,
// parked at the coordinator; no heartbeats, as in Java's PREPARING_REBALANCE) → Syncing (SyncGroup in flight) →
// Stable; RESET (a failed step, a lost membership) goes back to Unjoined from anywhere, CLOSE ends it for good.
// The states in which the member holds a generation and heartbeats (Preparing, Syncing, Stable) are those where
// `heartbeats` holds; the heartbeat itself is the consumer's background timer (Java's heartbeat thread), which
// sends one every heartbeat.interval.ms while it does.
//
// A plain union and a transition function, not an xstate machine: the lifecycle has no timers, guards, actions
// or context of its own (docs/architecture.md, "State machines or plain unions": machines are for lifecycles with
// timers and guarded transitions). An event the state does not take is ignored, as a machine would ignore it.
// Facts: apache/kafka `AbstractCoordinator.MemberState` and its `HeartbeatThread` (no heartbeats while
// UNJOINED or PREPARING_REBALANCE); the classic protocol's Heartbeat rules, KIP-62.

export type MemberStateName = 'Unjoined' | 'Preparing' | 'Joining' | 'Syncing' | 'Stable' | 'Closed';

export type MemberEvent =
  | { type: 'PREPARE' }
  | { type: 'JOIN_SENT' }
  | { type: 'JOINED' }
  | { type: 'SYNCED' }
  /** A step failed or the member lost its membership: it is out of the group until it joins again. */
  | { type: 'RESET' }
  | { type: 'CLOSE' };

/** The state after `event` in `state` (the same state when the event does not apply there). */
export function nextMemberState(state: MemberStateName, event: MemberEvent): MemberStateName {
  if (state === 'Closed') return state;
  switch (event.type) {
    case 'RESET':
      return 'Unjoined';
    case 'CLOSE':
      return 'Closed';
    case 'PREPARE':
      return state === 'Unjoined' || state === 'Stable' ? 'Preparing' : state;
    case 'JOIN_SENT':
      return state === 'Preparing' || state === 'Joining' ? 'Joining' : state;
    case 'JOINED':
      return state === 'Joining' ? 'Syncing' : state;
    case 'SYNCED':
      return state === 'Syncing' ? 'Stable' : state;
  }
}

/** Whether a member in `state` holds a generation and sends heartbeats. */
export function heartbeats(state: MemberStateName): boolean {
  return state === 'Preparing' || state === 'Syncing' || state === 'Stable';
}
