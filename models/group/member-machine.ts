// A group member's side of the classic protocol as an xstate machine, run by the consumer client:
// Unjoined → Preparing (onJoinPrepare: commit, revoke callbacks, which a rebalance listener may hold) →
// Joining (JoinGroup in flight, parked at the coordinator; no heartbeats, as in Java's PREPARING_REBALANCE) →
// Syncing (SyncGroup in flight) → Stable. The states in which the member holds a generation and heartbeats
// (Preparing, Syncing, Stable) carry the tag 'heartbeat'; the heartbeat itself is the consumer's background
// timer (Java's heartbeat thread), which sends one every heartbeat.interval.ms while the state has the tag.
// (A periodic timer rather than a delayed self-transition: a heartbeat is hot-path work, and re-entering a
// state every 3 s per member costs far more than the check.)
// Facts: clients-and-groups.md §1 (Heartbeat per state), AbstractCoordinator (MemberState, HeartbeatThread:
// no heartbeats while UNJOINED or PREPARING_REBALANCE).
import { setup } from 'xstate';

export type MemberStateName = 'Unjoined' | 'Preparing' | 'Joining' | 'Syncing' | 'Stable' | 'Closed';

export type MemberMachineEvent =
  | { type: 'PREPARE' }
  | { type: 'JOIN_SENT' }
  | { type: 'JOINED' }
  | { type: 'SYNCED' }
  /** A step failed or the member lost its membership: it is out of the group until it joins again. */
  | { type: 'RESET' }
  | { type: 'CLOSE' };

export const groupMemberMachine = setup({
  types: {
    events: {} as MemberMachineEvent,
    tags: {} as 'heartbeat',
  },
}).createMachine({
  id: 'group-member',
  initial: 'Unjoined',
  states: {
    Unjoined: { on: { PREPARE: 'Preparing' } },
    Preparing: { tags: ['heartbeat'], on: { JOIN_SENT: 'Joining' } },
    Joining: { on: { JOIN_SENT: { target: 'Joining', reenter: true }, JOINED: 'Syncing' } },
    Syncing: { tags: ['heartbeat'], on: { SYNCED: 'Stable' } },
    Stable: { tags: ['heartbeat'], on: { PREPARE: 'Preparing' } },
    Closed: { type: 'final' },
  },
  on: { RESET: { target: '.Unjoined' }, CLOSE: { target: '.Closed' } },
});
