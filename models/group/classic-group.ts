// One consumer group on its coordinator, classic protocol: the members, the generation, the chosen protocol,
// the leader, the parked JoinGroup and SyncGroup requests and the members' session timers. Its lifecycle
// (states, legal transitions, state-scoped timers) is the xstate machine in group-machine.ts; this class answers
// requests by the per-state rules of group-state.ts. The leader client computes the assignment: the group only
// stores it and relays each member's part.
// Facts: Kafka's GroupMetadataManager (classicGroupJoin*, prepareRebalance,
// maybeCompleteJoinPhase, completeClassicGroupJoin, classicGroupSync, classicGroupHeartbeat,
// classicGroupLeave, expirePendingSync, ClassicGroup.add/remove/selectProtocol).

import type { Actor, AnyActorLogic } from 'xstate';
import {
  type DescribedGroup,
  type ErrorName,
  Errors,
  type HeartbeatRequest,
  type HeartbeatResponse,
  type JoinGroupProtocol,
  type JoinGroupRequest,
  type JoinGroupResponse,
  type LeaveGroupRequest,
  type LeaveGroupResponse,
  type SyncGroupRequest,
  type SyncGroupResponse,
} from '../protocol/index.ts';
import type { Timer } from '../sim/index.ts';
import type { TopicPartition } from './assignors/index.ts';
import type { GroupCoordinatorConfig } from './config.ts';
import { classicGroupMachine, groupStateOf } from './group-machine.ts';
import {
  type ClassicGroupState,
  heartbeatDecision,
  joinGroupDecision,
  syncGroupDecision,
} from './group-state.ts';
import { type GroupMetadataValue, groupMetadataValue } from './offsets-records.ts';
import { selectProtocol } from './protocol-selection.ts';

/** What a group needs from the coordinator that hosts it. */
export interface GroupHost {
  readonly config: GroupCoordinatorConfig;
  now(): number;
  /** A timer that dies with the broker's incarnation. */
  schedule(delay: number, fn: () => void, label: string): Timer;
  /** Starts an actor on the kernel's clock, stopped if the broker crashes. */
  spawn<L extends AnyActorLogic>(logic: L, input: unknown): Actor<L>;
  emit(kind: string, fields: Record<string, unknown>): void;
  /** A new member id: `<clientId>-<UUID>`. */
  newMemberId(clientId: string): string;
  /** Writes the group's metadata record to its __consumer_offsets partition; `done` gets the error code. */
  storeGroup(group: ClassicGroup, done: (errorCode: number) => void): void;
}

export interface GroupMember {
  readonly memberId: string;
  readonly groupInstanceId: string | null;
  clientId: string;
  clientHost: string;
  rebalanceTimeoutMs: number;
  sessionTimeoutMs: number;
  protocols: JoinGroupProtocol[];
  assignment: TopicPartition[];
  /** Joined but its first join has not completed: the 5-minute new-member timeout applies, not the session. */
  isNew: boolean;
  awaitingJoin: ((r: JoinGroupResponse) => void) | undefined;
  awaitingSync: ((r: SyncGroupResponse) => void) | undefined;
  sessionTimer: Timer | undefined;
}

const protocolNames = (m: { protocols: readonly JoinGroupProtocol[] }) => m.protocols.map((p) => p.name);
const sameProtocols = (a: readonly JoinGroupProtocol[], b: readonly JoinGroupProtocol[]) =>
  JSON.stringify(a) === JSON.stringify(b);
const code = (name: ErrorName) => Errors[name].code;

export class ClassicGroup {
  readonly members = new Map<string, GroupMember>();
  /** Ids handed out with MEMBER_ID_REQUIRED whose JoinGroup has not come yet, with their expiry timers. */
  readonly pendingMembers = new Map<string, Timer>();
  readonly pendingSyncMembers = new Set<string>();
  generationId = 0;
  protocolType: string | null = null;
  protocolName: string | null = null;
  leaderId: string | null = null;
  /** A member joined during the initial delay: the delay is extended once more (if time remains). */
  newMemberAdded = false;
  /** How many members support each protocol (ClassicGroup.supportedProtocols), kept as members come and go. */
  private readonly supportedProtocols = new Map<string, number>();
  private readonly actor: Actor<typeof classicGroupMachine>;

  constructor(
    readonly groupId: string,
    private readonly host: GroupHost,
    loaded?: GroupMetadataValue,
  ) {
    // Timer actions run as their own kernel event right after the machine's (at the same virtual time), so the
    // group never acts on a snapshot that is still being computed.
    const later = (fn: () => void) => () => void this.host.schedule(0, fn, 'group.timer');
    const logic = classicGroupMachine.provide({
      guards: { newMemberAdded: () => this.newMemberAdded },
      actions: {
        completeJoin: later(() => this.completeJoin()),
        clearNewMemberAdded: () => {
          this.newMemberAdded = false;
        },
        pendingSyncExpired: later(() => this.expirePendingSync()),
        abortSync: () => this.resetAndPropagateAssignment(code('REBALANCE_IN_PROGRESS')),
      },
    });
    const restored = loaded && loaded.members.length > 0 ? loaded : undefined;
    if (loaded) {
      this.generationId = loaded.generation;
      this.protocolType = loaded.protocolType || null;
      this.protocolName = restored ? loaded.protocol : null;
      this.leaderId = restored ? loaded.leader : null;
      for (const m of restored?.members ?? []) {
        const member: GroupMember = {
          ...m,
          isNew: false,
          awaitingJoin: undefined,
          awaitingSync: undefined,
          sessionTimer: undefined,
        };
        this.members.set(m.memberId, member);
        this.countProtocols(member, 1);
      }
    }
    this.actor = host.spawn(logic, {
      initialDelayMs: host.config['group.initial.rebalance.delay.ms'],
      ...(restored ? { loadedStable: { rebalanceTimeoutMs: this.rebalanceTimeoutMs } } : {}),
    });
    let last = this.state;
    this.actor.subscribe((snapshot) => {
      const now = groupStateOf(snapshot.value);
      if (now === last) return;
      this.emit('group.state', {
        from: last,
        to: now,
        generation: this.generationId,
        members: this.members.size,
      });
      last = now;
    });
    for (const m of this.members.values()) this.rescheduleSession(m, m.sessionTimeoutMs);
  }

  get state(): ClassicGroupState {
    return groupStateOf(this.actor.getSnapshot().value);
  }

  /** True while the initial rebalance delay runs (PreparingRebalance entered from Empty). */
  private get inInitialDelay(): boolean {
    return this.actor.getSnapshot().matches({ PreparingRebalance: 'InitialDelay' });
  }

  /** The largest rebalance timeout (max.poll.interval.ms) of the members. */
  get rebalanceTimeoutMs(): number {
    let max = 0;
    for (const m of this.members.values()) max = Math.max(max, m.rebalanceTimeoutMs);
    return max;
  }

  private emit(kind: string, fields: Record<string, unknown> = {}): void {
    this.host.emit(kind, { group: this.groupId, ...fields });
  }

  private send(event: Parameters<Actor<typeof classicGroupMachine>['send']>[0]): void {
    this.actor.send(event);
  }

  // ---- JoinGroup --------------------------------------------------------------------------------------------

  join(req: JoinGroupRequest, reply: (r: JoinGroupResponse) => void): void {
    const fail = (name: ErrorName, memberId = req.memberId) =>
      reply({
        errorCode: code(name),
        generationId: -1,
        protocolName: null,
        leader: '',
        memberId,
        members: [],
      });
    const state = this.state;
    if (state === 'Dead') return fail('COORDINATOR_NOT_AVAILABLE');
    const names = req.protocols.map((p) => p.name);
    // ClassicGroup.supportsProtocols: against what every current member (this one included) supports.
    if (
      (this.protocolType !== null && this.members.size > 0 && this.protocolType !== req.protocolType) ||
      !this.supportsProtocols(names)
    ) {
      return fail('INCONSISTENT_GROUP_PROTOCOL');
    }
    if (req.memberId === '') {
      if (this.members.size + this.pendingMembers.size >= this.host.config['group.max.size'])
        return fail('GROUP_MAX_SIZE_REACHED');
      // JoinGroup v4+: a new dynamic member first gets its id, then joins with it (KIP-394).
      const memberId = this.host.newMemberId(req.clientId);
      this.pendingMembers.set(
        memberId,
        this.host.schedule(
          req.sessionTimeoutMs,
          () => this.expirePendingMember(memberId),
          'group.pending-member-expiry',
        ),
      );
      return fail('MEMBER_ID_REQUIRED', memberId);
    }
    const member = this.members.get(req.memberId);
    const decision = joinGroupDecision(state, {
      known: member !== undefined,
      pending: this.pendingMembers.has(req.memberId),
      isLeader: this.leaderId === req.memberId,
      metadataChanged: member !== undefined && !sameProtocols(member.protocols, req.protocols),
    });
    switch (decision) {
      case 'park':
        if (!member) return this.addMember(req, reply);
        this.updateMember(member, req, reply);
        return this.maybeCompleteJoinPhase();
      case 'current-generation':
        return reply(this.joinResponse(member!));
      case 'rebalance': {
        // GroupMetadataManager.classicGroupJoinExistingMember: the leader's JoinGroup in Stable always rebalances
        // (it is how a client-side change such as a topic's partition count reaches the group); anyone else's
        // only when its protocol metadata differs from what the group holds.
        const why =
          state === 'Stable' && this.leaderId === req.memberId
            ? `Leader ${req.memberId} re-joining group during ${state}`
            : `Updating metadata for member ${req.memberId} during ${state}`;
        this.updateMember(member!, req, reply);
        return this.prepareRebalance(`${why}; client reason: ${req.reason ?? 'not provided'}`);
      }
      default:
        return fail(decision);
    }
  }

  private addMember(req: JoinGroupRequest, reply: (r: JoinGroupResponse) => void): void {
    this.pendingMembers.get(req.memberId)?.cancel();
    this.pendingMembers.delete(req.memberId);
    const member: GroupMember = {
      memberId: req.memberId,
      groupInstanceId: req.groupInstanceId,
      clientId: req.clientId,
      clientHost: req.clientHost,
      rebalanceTimeoutMs: req.rebalanceTimeoutMs,
      sessionTimeoutMs: req.sessionTimeoutMs,
      protocols: req.protocols,
      assignment: [],
      isNew: true,
      awaitingJoin: reply,
      awaitingSync: undefined,
      sessionTimer: undefined,
    };
    if (this.leaderId === null) this.leaderId = member.memberId;
    this.members.set(member.memberId, member);
    this.countProtocols(member, 1);
    this.protocolType ??= req.protocolType;
    // Only the very first rebalance of a group is extended by members arriving during the initial delay.
    if (this.state === 'PreparingRebalance' && this.generationId === 0) this.newMemberAdded = true;
    // A new member cannot heartbeat while its JoinGroup is parked; it gets the new-member join timeout instead.
    this.rescheduleSession(member, this.host.config['kafkasim.group.new.member.join.timeout.ms']);
    this.emit('group.member-added', { memberId: member.memberId, clientId: member.clientId });
    this.maybePrepareRebalanceOrCompleteJoin(`Adding new member ${member.memberId}`);
  }

  private supportsProtocols(names: readonly string[]): boolean {
    if (names.length === 0) return false;
    if (this.members.size === 0) return true;
    return names.some((n) => this.supportedProtocols.get(n) === this.members.size);
  }

  private countProtocols(m: GroupMember, delta: 1 | -1): void {
    for (const name of new Set(protocolNames(m))) {
      const n = (this.supportedProtocols.get(name) ?? 0) + delta;
      if (n === 0) this.supportedProtocols.delete(name);
      else this.supportedProtocols.set(name, n);
    }
  }

  private updateMember(
    member: GroupMember,
    req: JoinGroupRequest,
    reply: (r: JoinGroupResponse) => void,
  ): void {
    // A repeated JoinGroup supersedes a parked one (ClassicGroup.updateMember replaces the future): the client
    // only retries after its earlier request failed.
    this.countProtocols(member, -1);
    member.protocols = req.protocols;
    this.countProtocols(member, 1);
    member.rebalanceTimeoutMs = req.rebalanceTimeoutMs;
    member.sessionTimeoutMs = req.sessionTimeoutMs;
    member.clientId = req.clientId;
    member.clientHost = req.clientHost;
    member.awaitingJoin = reply;
  }

  private maybePrepareRebalanceOrCompleteJoin(reason: string): void {
    const state = this.state;
    if (state === 'Stable' || state === 'CompletingRebalance' || state === 'Empty')
      this.prepareRebalance(reason);
    else if (state === 'PreparingRebalance') this.maybeCompleteJoinPhase();
  }

  private hasAllMembersJoined(): boolean {
    if (this.pendingMembers.size > 0) return false;
    for (const m of this.members.values()) if (!m.awaitingJoin) return false;
    return true;
  }

  /** Completes the join phase early when everyone rejoined, except during the initial delay. */
  private maybeCompleteJoinPhase(): void {
    if (this.state === 'PreparingRebalance' && !this.inInitialDelay && this.hasAllMembersJoined())
      this.completeJoin();
  }

  prepareRebalance(reason: string): void {
    const state = this.state;
    if (state !== 'Empty' && state !== 'Stable' && state !== 'CompletingRebalance') return;
    this.pendingSyncMembers.clear();
    this.emit('group.prepare-rebalance', { reason, generation: this.generationId });
    this.send({ type: 'PREPARE_REBALANCE', rebalanceTimeoutMs: this.rebalanceTimeoutMs });
    if (state !== 'Empty') this.maybeCompleteJoinPhase();
  }

  /** completeClassicGroupJoin: the join phase ends (everyone joined, or a timer fired). */
  private completeJoin(): void {
    if (this.state !== 'PreparingRebalance') return;
    // Dynamic members that did not rejoin in time are removed (only possible when the timer fired).
    for (const m of [...this.members.values()]) {
      if (!m.awaitingJoin) this.removeMember(m, 'did not rejoin before the rebalance timeout');
    }
    this.generationId++;
    this.newMemberAdded = false;
    if (this.members.size === 0) {
      this.protocolName = null;
      this.leaderId = null;
      this.send({ type: 'JOIN_COMPLETED', empty: true, rebalanceTimeoutMs: 0 });
      this.host.storeGroup(this, () => {});
      return;
    }
    const all = [...this.members.values()];
    this.protocolName = selectProtocol(all.map((m) => ({ protocols: protocolNames(m) })));
    if (this.leaderId === null || !this.members.has(this.leaderId)) this.leaderId = all[0]!.memberId;
    this.send({ type: 'JOIN_COMPLETED', empty: false, rebalanceTimeoutMs: this.rebalanceTimeoutMs });
    this.emit('group.join-completed', {
      generation: this.generationId,
      protocol: this.protocolName,
      leader: this.leaderId,
      members: all.length,
    });
    for (const m of all) {
      const reply = m.awaitingJoin!;
      m.awaitingJoin = undefined;
      m.isNew = false;
      m.assignment = [];
      this.pendingSyncMembers.add(m.memberId);
      this.rescheduleSession(m, m.sessionTimeoutMs);
      reply(this.joinResponse(m));
    }
  }

  private joinResponse(m: GroupMember): JoinGroupResponse {
    const isLeader = m.memberId === this.leaderId;
    const members = isLeader
      ? [...this.members.values()].map((x) => ({
          memberId: x.memberId,
          groupInstanceId: x.groupInstanceId,
          metadata: x.protocols.find((p) => p.name === this.protocolName)!.metadata,
        }))
      : [];
    return {
      errorCode: 0,
      generationId: this.generationId,
      protocolName: this.protocolName,
      leader: this.leaderId ?? '',
      memberId: m.memberId,
      members,
    };
  }

  // ---- SyncGroup --------------------------------------------------------------------------------------------

  sync(req: SyncGroupRequest, reply: (r: SyncGroupResponse) => void): void {
    const member = this.members.get(req.memberId);
    const decision = syncGroupDecision(this.state, {
      known: member !== undefined,
      generationMatches: req.generationId === this.generationId,
    });
    const fail = (name: ErrorName) => reply({ errorCode: code(name), protocolName: null, assignment: [] });
    if (decision !== 'park' && decision !== 'current-assignment') return fail(decision);
    if (req.protocolName !== null && req.protocolName !== this.protocolName)
      return fail('INCONSISTENT_GROUP_PROTOCOL');
    this.pendingSyncMembers.delete(member!.memberId);
    this.rescheduleSession(member!, member!.sessionTimeoutMs);
    if (decision === 'current-assignment') {
      return reply({ errorCode: 0, protocolName: this.protocolName, assignment: member!.assignment });
    }
    member!.awaitingSync = reply;
    if (member!.memberId !== this.leaderId) return;
    // The leader's assignment is written to __consumer_offsets before anyone gets it (storeGroup).
    const assignments = new Map(req.assignments.map((a) => [a.memberId, a.assignment]));
    const generation = this.generationId;
    for (const m of this.members.values()) m.assignment = assignments.get(m.memberId) ?? [];
    this.host.storeGroup(this, (errorCode) => {
      if (this.state !== 'CompletingRebalance' || this.generationId !== generation) return;
      if (errorCode !== 0) {
        this.resetAndPropagateAssignment(errorCode);
        this.prepareRebalance('failed to store the group assignment');
        return;
      }
      this.send({ type: 'ASSIGNMENT_STORED' });
      this.propagateAssignment(0);
      this.emit('group.stable', { generation: this.generationId, protocol: this.protocolName });
    });
  }

  private propagateAssignment(errorCode: number): void {
    for (const m of this.members.values()) {
      const reply = m.awaitingSync;
      if (!reply) continue;
      m.awaitingSync = undefined;
      reply({ errorCode, protocolName: this.protocolName, assignment: errorCode === 0 ? m.assignment : [] });
      // A member answered is no longer waiting for its session to be checked by the sync.
      if (errorCode === 0) this.rescheduleSession(m, m.sessionTimeoutMs);
    }
  }

  private resetAndPropagateAssignment(errorCode: number): void {
    for (const m of this.members.values()) m.assignment = [];
    this.propagateAssignment(errorCode);
  }

  private expirePendingSync(): void {
    const state = this.state;
    if ((state !== 'CompletingRebalance' && state !== 'Stable') || this.pendingSyncMembers.size === 0) return;
    const expired = [...this.pendingSyncMembers];
    for (const id of expired) {
      const m = this.members.get(id);
      if (m) this.removeMember(m, 'pending sync expired');
    }
    this.pendingSyncMembers.clear();
    this.prepareRebalance(`Removing ${expired.join(', ')} on pending sync request expiration`);
  }

  // ---- Heartbeat, LeaveGroup, session expiry --------------------------------------------------------------

  heartbeat(req: HeartbeatRequest): HeartbeatResponse {
    const member = this.members.get(req.memberId);
    const decision = heartbeatDecision(this.state, {
      known: member !== undefined,
      generationMatches: req.generationId === this.generationId,
    });
    if (member && (decision === 'NONE' || decision === 'REBALANCE_IN_PROGRESS'))
      this.rescheduleSession(member, member.sessionTimeoutMs);
    return { errorCode: code(decision) };
  }

  leave(req: LeaveGroupRequest): LeaveGroupResponse {
    if (this.state === 'Dead') return { errorCode: code('COORDINATOR_NOT_AVAILABLE'), members: [] };
    const results = req.members.map(({ memberId, reason }) => {
      if (this.pendingMembers.has(memberId)) {
        this.pendingMembers.get(memberId)!.cancel();
        this.pendingMembers.delete(memberId);
        this.maybeCompleteJoinPhase();
        return { memberId, errorCode: 0 };
      }
      const m = this.members.get(memberId);
      if (!m) return { memberId, errorCode: code('UNKNOWN_MEMBER_ID') };
      this.removeMemberAndUpdateGroup(m, `member left the group: ${reason ?? 'no reason given'}`);
      return { memberId, errorCode: 0 };
    });
    return { errorCode: 0, members: results };
  }

  /** The coordinator also counts a commit from a member as a sign of life. */
  touch(memberId: string): void {
    const m = this.members.get(memberId);
    if (m && !m.isNew) this.rescheduleSession(m, m.sessionTimeoutMs);
  }

  private rescheduleSession(m: GroupMember, timeoutMs: number): void {
    m.sessionTimer?.cancel();
    m.sessionTimer = this.host.schedule(timeoutMs, () => this.expireMember(m), 'group.session-expiry');
  }

  private expireMember(m: GroupMember): void {
    if (this.members.get(m.memberId) !== m) return;
    // A member parked in a JoinGroup or SyncGroup cannot heartbeat: the rebalance and pending-sync timers
    // cover it instead; a new member's parked join is dropped after the new-member join timeout.
    if (!m.isNew && (m.awaitingJoin || m.awaitingSync)) return;
    this.emit('group.member-expired', {
      memberId: m.memberId,
      sessionTimeoutMs: m.sessionTimeoutMs,
      isNew: m.isNew,
    });
    this.removeMemberAndUpdateGroup(m, m.isNew ? 'new member join timeout' : 'session timeout expired');
  }

  private expirePendingMember(memberId: string): void {
    if (!this.pendingMembers.delete(memberId)) return;
    this.emit('group.pending-member-expired', { memberId });
    this.maybeCompleteJoinPhase();
  }

  private removeMemberAndUpdateGroup(m: GroupMember, reason: string): void {
    m.awaitingJoin?.({
      errorCode: code('UNKNOWN_MEMBER_ID'),
      generationId: -1,
      protocolName: null,
      leader: '',
      memberId: m.memberId,
      members: [],
    });
    m.awaitingJoin = undefined;
    m.awaitingSync?.({ errorCode: code('UNKNOWN_MEMBER_ID'), protocolName: null, assignment: [] });
    m.awaitingSync = undefined;
    this.removeMember(m, reason);
    const state = this.state;
    if (state === 'Stable' || state === 'CompletingRebalance') this.prepareRebalance(reason);
    else if (state === 'PreparingRebalance') this.maybeCompleteJoinPhase();
  }

  private removeMember(m: GroupMember, reason: string): void {
    m.sessionTimer?.cancel();
    this.members.delete(m.memberId);
    this.countProtocols(m, -1);
    this.pendingSyncMembers.delete(m.memberId);
    if (this.leaderId === m.memberId) {
      // The next member that is rejoining takes over (ClassicGroup.remove), else any member.
      const next =
        [...this.members.values()].find((x) => x.awaitingJoin) ?? this.members.values().next().value;
      this.leaderId = next?.memberId ?? null;
    }
    this.emit('group.member-removed', { memberId: m.memberId, reason });
  }

  // ---- views and lifecycle ------------------------------------------------------------------------------------

  /** DescribeGroups (GroupMetadata.summary): metadata, assignment and protocol only while Stable. */
  describe(): DescribedGroup {
    const stable = this.state === 'Stable';
    return {
      errorCode: 0,
      groupId: this.groupId,
      groupState: this.state,
      protocolType: this.protocolType ?? '',
      protocolData: stable ? (this.protocolName ?? '') : '',
      members: [...this.members.values()].map((m) => ({
        memberId: m.memberId,
        groupInstanceId: m.groupInstanceId,
        clientId: m.clientId,
        clientHost: m.clientHost,
        metadata: stable ? (m.protocols.find((p) => p.name === this.protocolName)?.metadata ?? null) : null,
        assignment: stable ? m.assignment : null,
      })),
    };
  }

  /** The GroupMetadata record value written to __consumer_offsets. */
  toRecord(): GroupMetadataValue {
    return groupMetadataValue(this);
  }

  /**
   * The coordinator lost the partition: everyone parked hears NOT_COORDINATOR and finds the new one. A group
   * converted to a consumer group tells them REBALANCE_IN_PROGRESS instead: they rejoin it.
   */
  unload(reason: 'NOT_COORDINATOR' | 'REBALANCE_IN_PROGRESS' = 'NOT_COORDINATOR'): void {
    const notCoordinator = code(reason);
    for (const m of this.members.values()) {
      m.sessionTimer?.cancel();
      m.awaitingJoin?.({
        errorCode: notCoordinator,
        generationId: -1,
        protocolName: null,
        leader: '',
        memberId: m.memberId,
        members: [],
      });
      m.awaitingJoin = undefined;
      m.awaitingSync?.({ errorCode: notCoordinator, protocolName: null, assignment: [] });
      m.awaitingSync = undefined;
    }
    for (const t of this.pendingMembers.values()) t.cancel();
    this.pendingMembers.clear();
    this.send({ type: 'UNLOAD' });
    this.actor.stop();
  }
}
