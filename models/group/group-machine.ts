// The classic group's lifecycle as an xstate machine: Empty, PreparingRebalance, CompletingRebalance, Stable,
// Dead, with the timers that belong to a state. The machine owns the states, the legal transitions
// (validPreviousStates) and the state-scoped timers; the group (classic-group.ts) owns the members and answers
// requests, and is plugged in through the actions and guards below (machine.provide).
//
// Timers (GroupMetadataManager.prepareRebalance and maybeCompleteJoinPhase):
// - PreparingRebalance from Empty (the initial rebalance): group.initial.rebalance.delay.ms (3000), with
//   remaining = max(rebalanceTimeout - delay, 0); when it fires, if a new member joined meanwhile and time
//   remains, it re-arms min(delay, remaining) and remaining shrinks by the delay that just ran; else the join
//   phase completes.
// - PreparingRebalance otherwise: the group's rebalance timeout (the largest member max.poll.interval.ms); the
//   join completes earlier as soon as every member has rejoined (the group calls completeJoin itself).
// - After the join (CompletingRebalance, and Stable until every member synced): the pending-sync timeout, also
//   the rebalance timeout; members that never synced are removed and the group rebalances again.
import { and, assign, setup } from 'xstate';
import type { ClassicGroupState } from './group-state.ts';

export interface GroupMachineContext {
  /** group.initial.rebalance.delay.ms */
  initialDelayMs: number;
  /** The initial-delay timer now armed, and what is left of the rebalance timeout after it. */
  delayMs: number;
  remainingMs: number;
  /** The group's rebalance timeout when the current state was entered. */
  rebalanceTimeoutMs: number;
  startStable: boolean;
}

export type GroupMachineEvent =
  | { type: 'PREPARE_REBALANCE'; rebalanceTimeoutMs: number }
  | { type: 'JOIN_COMPLETED'; empty: boolean; rebalanceTimeoutMs: number }
  | { type: 'ASSIGNMENT_STORED' }
  | { type: 'UNLOAD' };

export const classicGroupMachine = setup({
  types: {
    context: {} as GroupMachineContext,
    events: {} as GroupMachineEvent,
    /** A group loaded from __consumer_offsets with members starts Stable (`loadedStable`). */
    input: {} as { initialDelayMs: number; loadedStable?: { rebalanceTimeoutMs: number } },
  },
  delays: {
    initialDelay: ({ context }) => context.delayMs,
    rebalanceTimeout: ({ context }) => context.rebalanceTimeoutMs,
  },
  guards: {
    /** Provided by the group: a member joined during the current initial delay. */
    newMemberAdded: () => false,
    timeRemains: ({ context }) => context.remainingMs > 0,
    joinLeftNoMembers: ({ event }) => event.type === 'JOIN_COMPLETED' && event.empty,
  },
  actions: {
    /** Provided by the group: finish the join phase (the group then sends JOIN_COMPLETED). */
    completeJoin: () => {},
    /** Provided by the group: forget that a new member joined during the delay that just ran. */
    clearNewMemberAdded: () => {},
    /** Provided by the group: remove members that have not synced, then rebalance. */
    pendingSyncExpired: () => {},
    /** Provided by the group: answer parked SyncGroups with REBALANCE_IN_PROGRESS (a rebalance started). */
    abortSync: () => {},
  },
}).createMachine({
  id: 'classic-group',
  context: ({ input }) => ({
    initialDelayMs: input.initialDelayMs,
    delayMs: input.initialDelayMs,
    remainingMs: 0,
    rebalanceTimeoutMs: input.loadedStable?.rebalanceTimeoutMs ?? 0,
    startStable: input.loadedStable !== undefined,
  }),
  initial: 'Start',
  states: {
    // Loaded groups start Stable (members restored from __consumer_offsets) or Empty.
    Start: {
      always: [{ guard: ({ context }) => context.startStable, target: 'Joined.Stable' }, { target: 'Empty' }],
    },
    Empty: {
      on: {
        PREPARE_REBALANCE: {
          target: 'PreparingRebalance.InitialDelay',
          actions: assign(({ context, event }) => ({
            delayMs: context.initialDelayMs,
            remainingMs: Math.max(event.rebalanceTimeoutMs - context.initialDelayMs, 0),
            rebalanceTimeoutMs: event.rebalanceTimeoutMs,
          })),
        },
      },
    },
    PreparingRebalance: {
      initial: 'AwaitingJoins',
      states: {
        InitialDelay: {
          after: {
            initialDelay: [
              {
                guard: and(['newMemberAdded', 'timeRemains']),
                target: 'InitialDelay',
                reenter: true,
                actions: [
                  assign(({ context }) => ({
                    delayMs: Math.min(context.initialDelayMs, context.remainingMs),
                    remainingMs: Math.max(context.remainingMs - context.delayMs, 0),
                  })),
                  'clearNewMemberAdded',
                ],
              },
              { actions: 'completeJoin' },
            ],
          },
        },
        AwaitingJoins: {
          after: { rebalanceTimeout: { actions: 'completeJoin' } },
        },
      },
      on: {
        JOIN_COMPLETED: [
          { guard: 'joinLeftNoMembers', target: 'Empty' },
          {
            target: 'Joined.CompletingRebalance',
            actions: assign(({ event }) => ({ rebalanceTimeoutMs: event.rebalanceTimeoutMs })),
          },
        ],
      },
    },
    Joined: {
      initial: 'CompletingRebalance',
      after: { rebalanceTimeout: { actions: 'pendingSyncExpired' } },
      states: {
        CompletingRebalance: {
          on: {
            ASSIGNMENT_STORED: { target: 'Stable' },
            PREPARE_REBALANCE: {
              target: '#classic-group.PreparingRebalance.AwaitingJoins',
              actions: [
                'abortSync',
                assign(({ event }) => ({ rebalanceTimeoutMs: event.rebalanceTimeoutMs })),
              ],
            },
          },
        },
        Stable: {
          on: {
            PREPARE_REBALANCE: {
              target: '#classic-group.PreparingRebalance.AwaitingJoins',
              actions: assign(({ event }) => ({ rebalanceTimeoutMs: event.rebalanceTimeoutMs })),
            },
          },
        },
      },
    },
    Dead: { type: 'final' },
  },
  on: { UNLOAD: { target: '.Dead' } },
});

/** The ClassicGroupState a machine snapshot value stands for. */
export function groupStateOf(value: unknown): ClassicGroupState {
  if (typeof value === 'string') return value === 'Start' ? 'Empty' : (value as ClassicGroupState);
  const v = value as Record<string, unknown>;
  if ('PreparingRebalance' in v) return 'PreparingRebalance';
  if ('Joined' in v) return v.Joined === 'Stable' ? 'Stable' : 'CompletingRebalance';
  return 'Dead';
}
