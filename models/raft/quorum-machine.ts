/**
 * The Raft roles as an xstate v5 machine (Kafka's QuorumState and its EpochState classes, KIP-595): Unattached (with
 * the vote it gave, if any), Candidate (electing, then backing off after a loss), Leader, Follower, Resigned, and,
 * with pre-vote on, Prospective (KIP-996), the only path into Candidate then. The machine owns the epoch, the known
 * leader, the vote and the timers (election timeout, backoff, fetch timeout, check-quorum, BeginQuorumEpoch resend);
 * its delayed transitions run on the kernel clock. The host (RaftClient) does the I/O: it persists the election
 * state, sends requests and replicates, and tells the machine what it learns.
 *
 * Timers reset by traffic (the follower's fetch timeout, the leader's check-quorum) are lazy: the host moves a
 * deadline without an event, and the machine, when its timer fires, either acts or sleeps again until the
 * deadline. A successful fetch therefore costs no machine event.
 *
 * One machine definition serves every node (building one costs far more than starting an actor); the node's
 * environment comes in with the actor's input.
 */
import { and, assign, setup } from 'xstate';
import type { QuorumConfig } from './config.ts';
import {
  binaryExponentialElectionBackoffMs,
  majority,
  type QuorumRole,
  randomElectionTimeoutMs,
} from './decisions.ts';
import type { ElectionState } from './quorum-state.ts';

export interface QuorumContext {
  readonly epoch: number;
  readonly leaderId: number | undefined;
  readonly votedId: number | undefined;
  /** Voters that granted (pre-)votes in the current election, this node included. */
  readonly granted: readonly number[];
  readonly rejected: readonly number[];
  /** Elections started in a row without a leader in between. */
  readonly retries: number;
  readonly electionTimeoutMs: number;
  /** When the current election timer fires (virtual ms). */
  readonly electionDeadline: number;
  /**
   * The next Unattached state keeps the running election timer instead of drawing a new one. Kafka does so when
   * a Candidate or an Unattached voter moves to a larger epoch: otherwise a candidate with a stale log, bumping
   * the epoch after every backoff, would reset everyone's timer forever.
   */
  readonly keepElectionTimer: boolean;
  /** The role being held (set on entry). */
  readonly role: QuorumRole | 'init';
  readonly backoffMs: number;
  /** Resigned only: the successors named in EndQuorumEpoch. */
  readonly preferredSuccessors: readonly number[];
  /** Where a (re)started node begins. */
  readonly initial: QuorumRole;
  /** The host; fixed for the actor's life. */
  readonly env: QuorumEnvironment;
}

export type QuorumEvent =
  /** An epoch, and maybe its leader, learnt from a request or response. */
  | { readonly type: 'OBSERVE'; readonly epoch: number; readonly leaderId: number | undefined }
  /** This node grants its (standard) vote to a candidate of its epoch. */
  | { readonly type: 'GRANT_VOTE'; readonly candidateId: number }
  | {
      readonly type: 'VOTE_RESULT';
      readonly epoch: number;
      readonly from: number;
      readonly granted: boolean;
      readonly preVote: boolean;
    }
  /** The leader steps down (graceful shutdown): Resigned, naming its successors. */
  | { readonly type: 'RESIGN'; readonly successors: readonly number[] }
  /** The host moved the fetch deadline earlier (EndQuorumEpoch): re-arm the fetch timer. */
  | { readonly type: 'FETCH_DEADLINE_CHANGED' };

/** What the machine asks of its host. */
export interface QuorumEnvironment {
  readonly localId: number;
  readonly voters: readonly number[];
  readonly config: QuorumConfig;
  /** Virtual time (ms). */
  now(): number;
  /** Uniform integer in [0, bound), from the node's seeded stream. */
  nextInt(bound: number): number;
  /** Writes the quorum-state file (before the node acts in its new role). */
  persist(state: ElectionState): void;
  /** The node has entered `role`; `context` is the machine's new context. */
  enter(role: QuorumRole, context: QuorumContext): void;
  /** Follower: ms until the fetch timeout (<= 0: expired). */
  fetchTimeoutRemainingMs(): number;
  /** Leader: ms until check-quorum expires (<= 0: expired). */
  checkQuorumRemainingMs(): number;
  /** Leader: the other voters by descending fetch offset. */
  successors(): number[];
  isShuttingDown(): boolean;
  /** Leader: resend BeginQuorumEpoch to the voters. */
  sendBeginQuorumEpoch(): void;
}

export interface QuorumInput {
  readonly env: QuorumEnvironment;
  readonly initial: 'unattached' | 'candidate' | 'prospective' | 'follower' | 'resigned';
  readonly election: ElectionState;
}

const isVoter = (env: QuorumEnvironment) => env.voters.includes(env.localId);
const preVoteOn = (env: QuorumEnvironment) => env.config['kafkasim.raft.pre.vote.enable'];
const drawElectionTimeout = (env: QuorumEnvironment) =>
  randomElectionTimeoutMs(env.config['controller.quorum.election.timeout.ms'], (b) => env.nextInt(b));

type ElectionGuard = 'isVoter' | 'notShuttingDown' | 'onlyVoter';

/** An election starts in Prospective with pre-vote on, else in Candidate (when the `extra` guards hold too). */
function startElection(...extra: ElectionGuard[]) {
  return [
    { guard: and([...extra, 'preVoteOn']), target: '#quorum.prospective', actions: 'toProspective' },
    { guard: and([...extra, 'preVoteOff']), target: '#quorum.candidate', actions: 'toCandidate' },
  ] as const;
}

export const quorumMachine = setup({
  types: {
    context: {} as QuorumContext,
    events: {} as QuorumEvent,
    input: {} as QuorumInput,
  },
  actions: {
    // With a known leader the vote no longer matters: Kafka stores an elected leader without it.
    persist: ({ context }) =>
      context.env.persist({
        epoch: context.epoch,
        leaderId: context.leaderId,
        votedId: context.leaderId === undefined ? context.votedId : undefined,
      }),
    enter: ({ context }, params: { role: QuorumRole }) => context.env.enter(params.role, context),
    sendBeginQuorumEpoch: ({ context }) => context.env.sendBeginQuorumEpoch(),
    drawElectionTimeout: assign(({ context }) => {
      const now = context.env.now();
      const ms = context.keepElectionTimer
        ? Math.max(0, context.electionDeadline - now)
        : drawElectionTimeout(context.env);
      return { electionTimeoutMs: ms, electionDeadline: now + ms, keepElectionTimer: false };
    }),
    holding: assign((_, params: { role: QuorumRole }) => ({ role: params.role })),
    // A new election: the next epoch, a vote for ourselves.
    toCandidate: assign(({ context }) => ({
      epoch: context.epoch + 1,
      leaderId: undefined,
      votedId: context.env.localId,
      granted: [context.env.localId],
      rejected: [],
      retries: context.retries + 1,
    })),
    toProspective: assign(({ context }) => ({ granted: [context.env.localId], rejected: [] })),
    recordVote: assign(({ context, event }) => {
      if (event.type !== 'VOTE_RESULT') return {};
      const add = (list: readonly number[]) => (list.includes(event.from) ? list : [...list, event.from]);
      return event.granted ? { granted: add(context.granted) } : { rejected: add(context.rejected) };
    }),
    drawBackoff: assign(({ context }) => ({
      backoffMs: binaryExponentialElectionBackoffMs(
        Math.max(1, context.retries),
        context.env.config['controller.quorum.election.backoff.max.ms'],
        (b) => context.env.nextInt(b),
      ),
    })),
    recordSuccessors: assign(({ context }) => ({ preferredSuccessors: context.env.successors() })),
  },
  guards: {
    won: ({ context }) => context.granted.length >= majority(context.env.voters.length),
    lost: ({ context }) =>
      context.rejected.length > context.env.voters.length - majority(context.env.voters.length),
    leaderKnown: ({ context }) => context.leaderId !== undefined,
    notShuttingDown: ({ context }) => !context.env.isShuttingDown(),
    fetchTimedOut: ({ context }) => context.env.fetchTimeoutRemainingMs() <= 0,
    checkQuorumExpired: ({ context }) => context.env.checkQuorumRemainingMs() <= 0,
    isVoter: ({ context }) => isVoter(context.env),
    onlyVoter: ({ context }) => isVoter(context.env) && context.env.voters.length === 1,
    preVoteOn: ({ context }) => preVoteOn(context.env),
    preVoteOff: ({ context }) => !preVoteOn(context.env),
  },
  delays: {
    electionTimeout: ({ context }) => context.electionTimeoutMs,
    backoff: ({ context }) => context.backoffMs,
    fetchTimeout: ({ context }) => Math.max(0, context.env.fetchTimeoutRemainingMs()),
    checkQuorum: ({ context }) => Math.max(0, context.env.checkQuorumRemainingMs()),
    beginQuorumEpoch: ({ context }) => context.env.config['controller.quorum.fetch.timeout.ms'] / 2,
  },
}).createMachine({
  id: 'quorum',
  context: ({ input }) => ({
    epoch: input.election.epoch,
    leaderId: input.election.leaderId,
    votedId: input.election.votedId,
    granted: [],
    rejected: [],
    retries: 0,
    electionTimeoutMs: 0,
    electionDeadline: 0,
    keepElectionTimer: false,
    role: 'init' as const,
    backoffMs: 0,
    preferredSuccessors: [],
    initial: input.initial,
    env: input.env,
  }),
  initial: 'init',
  on: {
    OBSERVE: [
      {
        guard: ({ context, event }) => event.epoch > context.epoch && event.leaderId !== undefined,
        target: '.follower',
        reenter: true,
        actions: assign(({ event }) => ({
          epoch: event.epoch,
          leaderId: event.leaderId,
          votedId: undefined,
          retries: 0,
        })),
      },
      {
        guard: ({ context, event }) => event.epoch > context.epoch,
        target: '.unattached',
        reenter: true,
        actions: assign(({ context, event }) => ({
          epoch: event.epoch,
          leaderId: undefined,
          votedId: undefined,
          retries: 0,
          keepElectionTimer: context.role === 'unattached' || context.role === 'candidate',
        })),
      },
      {
        // A leader of our epoch we did not know of (another candidate won, or an observer discovered it).
        guard: ({ context, event }) =>
          event.epoch === context.epoch &&
          event.leaderId !== undefined &&
          event.leaderId !== context.env.localId &&
          context.leaderId === undefined,
        target: '.follower',
        reenter: true,
        actions: assign(({ event }) => ({ leaderId: event.leaderId, retries: 0 })),
      },
    ],
  },
  states: {
    init: {
      always: [
        { guard: ({ context }) => context.initial === 'resigned', target: 'resigned' },
        {
          guard: ({ context }) => context.initial === 'candidate',
          target: 'candidate',
          actions: assign(({ context }) => ({ granted: [context.env.localId], rejected: [], retries: 1 })),
        },
        {
          guard: ({ context }) => context.initial === 'prospective',
          target: 'prospective',
          actions: 'toProspective',
        },
        { guard: ({ context }) => context.initial === 'follower', target: 'follower' },
        // The only voter need not wait for an election timeout (KafkaRaftClient.initialize).
        ...startElection('onlyVoter'),
        { target: 'unattached' },
      ],
    },
    unattached: {
      entry: [
        'drawElectionTimeout',
        'persist',
        { type: 'holding', params: { role: 'unattached' } },
        { type: 'enter', params: { role: 'unattached' } },
      ],
      // Observers never start elections.
      after: { electionTimeout: startElection('isVoter', 'notShuttingDown') },
      on: {
        GRANT_VOTE: {
          guard: ({ context, event }) =>
            context.votedId === undefined || context.votedId === event.candidateId,
          target: 'unattached',
          reenter: true,
          actions: assign(({ event }) => ({ votedId: event.candidateId })),
        },
      },
    },
    prospective: {
      entry: [
        'drawElectionTimeout',
        'persist',
        { type: 'holding', params: { role: 'prospective' } },
        { type: 'enter', params: { role: 'prospective' } },
      ],
      always: [
        { guard: 'won', target: 'candidate', actions: 'toCandidate' },
        { guard: and(['lost', 'leaderKnown']), target: 'follower' },
        { guard: 'lost', target: 'unattached' },
      ],
      after: {
        electionTimeout: [{ guard: 'leaderKnown', target: 'follower' }, { target: 'unattached' }],
      },
      on: {
        VOTE_RESULT: {
          guard: ({ context, event }) => event.preVote && event.epoch === context.epoch,
          actions: 'recordVote',
        },
        GRANT_VOTE: {
          guard: ({ context, event }) =>
            context.votedId === undefined || context.votedId === event.candidateId,
          target: 'unattached',
          actions: assign(({ event }) => ({ votedId: event.candidateId, leaderId: undefined })),
        },
      },
    },
    candidate: {
      entry: [
        'persist',
        { type: 'holding', params: { role: 'candidate' } },
        { type: 'enter', params: { role: 'candidate' } },
      ],
      initial: 'electing',
      on: {
        VOTE_RESULT: {
          guard: ({ context, event }) => !event.preVote && event.epoch === context.epoch,
          actions: 'recordVote',
        },
      },
      states: {
        electing: {
          entry: 'drawElectionTimeout',
          always: [
            { guard: 'won', target: '#quorum.leader' },
            { guard: 'lost', target: 'backingOff' },
          ],
          after: { electionTimeout: 'backingOff' },
        },
        backingOff: {
          entry: 'drawBackoff',
          always: [{ guard: 'won', target: '#quorum.leader' }],
          after: {
            backoff: [
              { guard: 'preVoteOn', target: '#quorum.prospective', actions: 'toProspective' },
              { target: '#quorum.candidate', reenter: true, actions: 'toCandidate' },
            ],
          },
        },
      },
    },
    leader: {
      type: 'parallel',
      entry: [
        assign(({ context }) => ({ leaderId: context.env.localId, retries: 0 })),
        'persist',
        { type: 'holding', params: { role: 'leader' } },
        { type: 'enter', params: { role: 'leader' } },
      ],
      on: {
        RESIGN: {
          target: 'resigned',
          actions: assign(({ event }) => ({ preferredSuccessors: event.successors })),
        },
      },
      states: {
        checkQuorum: {
          initial: 'start',
          states: {
            // A single voter is its own majority: it never resigns for lack of fetches.
            start: { always: [{ guard: 'onlyVoter', target: 'off' }, { target: 'watching' }] },
            watching: {
              after: {
                checkQuorum: [
                  { guard: 'checkQuorumExpired', target: '#quorum.resigned', actions: 'recordSuccessors' },
                  { target: 'watching', reenter: true },
                ],
              },
            },
            off: {},
          },
        },
        beginQuorumEpoch: {
          initial: 'waiting',
          states: {
            waiting: {
              after: {
                beginQuorumEpoch: { target: 'waiting', reenter: true, actions: 'sendBeginQuorumEpoch' },
              },
            },
          },
        },
      },
    },
    follower: {
      entry: [
        assign({ retries: 0 }),
        'persist',
        { type: 'holding', params: { role: 'follower' } },
        { type: 'enter', params: { role: 'follower' } },
      ],
      initial: 'start',
      states: {
        // Observers never elect; they just keep fetching.
        start: { always: [{ guard: 'isVoter', target: 'watching' }, { target: 'observing' }] },
        watching: {
          after: {
            fetchTimeout: [
              { guard: 'fetchTimedOut', target: 'expired' },
              { target: 'watching', reenter: true },
            ],
          },
          on: { FETCH_DEADLINE_CHANGED: { target: 'watching', reenter: true } },
        },
        expired: { always: startElection('notShuttingDown') },
        observing: {},
      },
    },
    resigned: {
      entry: [
        'drawElectionTimeout',
        { type: 'holding', params: { role: 'resigned' } },
        { type: 'enter', params: { role: 'resigned' } },
      ],
      after: {
        electionTimeout: [
          { guard: and(['notShuttingDown', 'preVoteOn']), target: 'unattached' },
          { guard: and(['notShuttingDown', 'preVoteOff']), target: 'candidate', actions: 'toCandidate' },
        ],
      },
    },
  },
});

export type QuorumMachine = typeof quorumMachine;

/** The role a machine state value stands for. */
export function roleOf(value: unknown): QuorumRole | 'init' {
  const top = typeof value === 'string' ? value : Object.keys(value as object)[0];
  return top as QuorumRole | 'init';
}
