// The groups of one __consumer_offsets partition, mirroring Kafka's GroupMetadataManager: classic groups
// (ClassicGroup: JoinGroup, SyncGroup, Heartbeat, LeaveGroup) and consumer-protocol groups (ConsumerGroup:
// ConsumerGroupHeartbeat, KIP-848), the classic members a consumer group hosts during a migration
// (consumer-group-classic.ts), and the online conversion between the two protocols both ways
// (group.consumer.migration.policy; the pure checks live in group-migration.ts). It writes the groups' records
// (a classic group's GroupMetadata, a consumer group's record set, consumer-group-records.ts) through its shard,
// answers a request that changed a consumer group once its records are written, and rebuilds the groups from
// their records when the shard loads (replay).
// Facts: apache/kafka group-coordinator/.../GroupMetadataManager (classicGroupJoin, classicGroupSync,
// classicGroupHeartbeat, classicGroupLeave, consumerGroupHeartbeat, getOrMaybeCreateConsumerGroup,
// getOrMaybeCreateClassicGroup, convertToConsumerGroup, convertToClassicGroup, onNewMetadataImage, replay,
// onUnloaded).

import { newTopicId } from '../metadata/index.ts';
import {
  type ConsumerGroupHeartbeatRequest,
  type ConsumerGroupHeartbeatResponse,
  type ErrorName,
  Errors,
  type GroupRequest,
  type HeartbeatRequest,
  type JoinGroupRequest,
  type LeaveGroupRequest,
  type SyncGroupRequest,
} from '../protocol/index.ts';
import { ClassicGroup, type GroupHost } from './classic-group.ts';
import { ConsumerGroup, type ConsumerGroupHost } from './consumer-group.ts';
import {
  classicHeartbeatToConsumerGroup,
  classicJoinToConsumerGroup,
  classicLeaveToConsumerGroup,
  classicSyncToConsumerGroup,
} from './consumer-group-classic.ts';
import { HeartbeatError, heartbeatErrorResponse, validateHeartbeat } from './consumer-group-heartbeat.ts';
import { consumerGroupOf, recordsToWrite } from './consumer-group-records.ts';
import { commitErrorOf, errorResponse } from './coordinator-answers.ts';
import type { ShardContext } from './coordinator-shard.ts';
import {
  classicValueOf,
  consumerGroupFromClassic,
  downgradeAllowed,
  upgradeRefusal,
} from './group-migration.ts';
import { uuid } from './member-id.ts';
import { groupMetadataRecord, type LoadedGroup } from './offsets-records.ts';

const code = (name: ErrorName) => Errors[name].code;

export class GroupMetadataManager {
  readonly groups = new Map<string, ClassicGroup>();
  /** Consumer-protocol groups (KIP-848); a group id is in at most one of the two maps. */
  readonly consumerGroups = new Map<string, ConsumerGroup>();
  /** groupId → the consumer group's records as last written (record key → value). */
  private readonly consumerRecords = new Map<string, Map<string, string>>();
  private readonly groupHost: GroupHost;
  private readonly consumerGroupHost: ConsumerGroupHost;

  constructor(private readonly ctx: ShardContext) {
    const broker = ctx.broker;
    this.groupHost = {
      config: ctx.config,
      now: () => broker.sim.now,
      schedule: (delay, fn, label) => broker.schedule(delay, fn, label),
      spawn: (logic, input) => broker.spawn(logic, { input }),
      emit: (kind, fields) => broker.emit(kind, fields),
      newMemberId: (clientId) => `${clientId}-${uuid(broker.random('group-coordinator/member-id'))}`,
      storeGroup: (group, done) => this.writeClassicGroup(group, done),
    };
    this.consumerGroupHost = {
      consumerConfig: ctx.consumerConfig,
      now: () => broker.sim.now,
      schedule: (delay, fn, label) => broker.schedule(delay, fn, label),
      emit: (kind, fields) => broker.emit(kind, fields),
      // A consumer-protocol member id is Uuid.randomUuid().toString() (GroupMetadataManager.consumerGroupHeartbeat;
      // KIP-1082 has 4.0 clients make it the same way): 22 characters of URL-safe base64, as topic ids are.
      newMemberId: () => {
        const rng = broker.random('group-coordinator/member-id');
        return newTopicId(() => rng.uint32());
      },
      image: () => broker.image,
      maybeDowngrade: (group, leavingMemberId) => this.convertToClassicGroup(group, leavingMemberId),
      persist: (group) => this.writeConsumerGroup(group),
    };
  }

  /** A group as its records left it: a consumer group comes back with its epochs and members, else a classic one. */
  replay(groupId: string, loaded: LoadedGroup): void {
    const consumer = loaded.consumerRecords && consumerGroupOf(loaded.consumerRecords);
    if (!consumer) {
      this.groups.set(groupId, new ClassicGroup(groupId, this.groupHost, loaded.metadata));
      return;
    }
    // Its members keep heartbeating at their epoch.
    const group = new ConsumerGroup(groupId, this.consumerGroupHost);
    group.restore(consumer);
    this.consumerGroups.set(groupId, group);
    this.consumerRecords.set(groupId, loaded.consumerRecords!);
  }

  /** The broker replayed metadata that changed these topics: subscribed consumer groups refresh at their next heartbeat. */
  onNewMetadataImage(changedTopics: readonly string[]): void {
    for (const g of this.consumerGroups.values()) g.onTopicsChanged(changedTopics);
  }

  /** The shard is unloaded: every group's timers stop. */
  onUnloaded(): void {
    for (const g of this.groups.values()) g.unload();
    for (const g of this.consumerGroups.values()) g.unload();
  }

  // ---- classic protocol ------------------------------------------------------------------------------------

  classicGroupJoin(req: JoinGroupRequest, done: (r: unknown) => void): void {
    const fail = (name: ErrorName) =>
      done({
        errorCode: code(name),
        generationId: -1,
        protocolName: null,
        leader: '',
        memberId: req.memberId,
        members: [],
      });
    const config = this.ctx.config;
    if (
      req.sessionTimeoutMs < config['group.min.session.timeout.ms'] ||
      req.sessionTimeoutMs > config['group.max.session.timeout.ms']
    )
      return fail('INVALID_SESSION_TIMEOUT');
    const consumerGroup = this.consumerGroups.get(req.groupId);
    if (consumerGroup) {
      // A non-empty consumer group hosts the classic member (classicGroupJoinToConsumerGroup); an empty one
      // becomes a classic group.
      if (consumerGroup.members.size > 0)
        return this.afterWrite(consumerGroup, req, classicJoinToConsumerGroup(consumerGroup, req), done);
      consumerGroup.unload();
      this.writeConsumerGroup(consumerGroup, undefined, true);
      this.consumerGroups.delete(req.groupId);
      this.ctx.broker.emit('group.converted', { group: req.groupId, from: 'consumer', to: 'classic' });
    }
    let g = this.groups.get(req.groupId);
    if (!g) {
      // Only a member without an id may create the group; a known id for an unknown group is stale.
      if (req.memberId !== '') return fail('UNKNOWN_MEMBER_ID');
      g = this.getOrMaybeCreateClassicGroup(req.groupId);
    }
    g.join(req, done);
  }

  classicGroupSync(req: SyncGroupRequest, done: (r: unknown) => void): void {
    if (this.inConsumerGroup(req, classicSyncToConsumerGroup, done)) return;
    const g = this.groups.get(req.groupId);
    if (!g) return done({ errorCode: code('UNKNOWN_MEMBER_ID'), protocolName: null, assignment: [] });
    g.sync(req, done);
  }

  classicGroupHeartbeat(req: HeartbeatRequest, done: (r: unknown) => void): void {
    if (this.inConsumerGroup(req, classicHeartbeatToConsumerGroup, done)) return;
    const g = this.groups.get(req.groupId);
    done(g ? g.heartbeat(req) : { errorCode: code('UNKNOWN_MEMBER_ID') });
  }

  classicGroupLeave(req: LeaveGroupRequest, done: (r: unknown) => void): void {
    if (this.inConsumerGroup(req, classicLeaveToConsumerGroup, done)) return;
    const g = this.groups.get(req.groupId);
    if (!g)
      return done({
        errorCode: 0,
        members: req.members.map((m) => ({ memberId: m.memberId, errorCode: code('UNKNOWN_MEMBER_ID') })),
      });
    done(g.leave(req));
  }

  /**
   * A classic member's request to a group that is a consumer group now (its classic members,
   * consumer-group-classic.ts): answered once the group's records are written. False when the group is not one.
   */
  private inConsumerGroup<Q extends SyncGroupRequest | HeartbeatRequest | LeaveGroupRequest>(
    req: Q,
    answer: (group: ConsumerGroup, req: Q) => { errorCode: number },
    done: (r: unknown) => void,
  ): boolean {
    const group = this.consumerGroups.get(req.groupId);
    if (!group) return false;
    this.afterWrite(group, req, answer(group, req), done);
    return true;
  }

  /** The classic group, created empty when there is none (e.g. for a commit from outside any group). */
  getOrMaybeCreateClassicGroup(groupId: string): ClassicGroup {
    let g = this.groups.get(groupId);
    if (!g) {
      g = new ClassicGroup(groupId, this.groupHost);
      this.groups.set(groupId, g);
    }
    return g;
  }

  // ---- consumer protocol -----------------------------------------------------------------------------------

  /**
   * ConsumerGroupHeartbeat (consumerGroupHeartbeat / consumerGroupLeave): finds or creates the group
   * (getOrMaybeCreateConsumerGroup). An empty classic group (e.g. one that only holds committed offsets) becomes a
   * consumer group; a non-empty one is converted online when group.consumer.migration.policy allows it
   * (group-migration.ts), else the member gets GROUP_ID_NOT_FOUND.
   */
  consumerGroupHeartbeat(
    req: ConsumerGroupHeartbeatRequest,
    done: (r: ConsumerGroupHeartbeatResponse) => void,
  ): void {
    try {
      validateHeartbeat(req, this.ctx.consumerConfig);
    } catch (e) {
      if (e instanceof HeartbeatError) return done(heartbeatErrorResponse(e.errorName, e.message));
      throw e;
    }
    const group = this.getOrMaybeCreateConsumerGroup(req);
    if (!(group instanceof ConsumerGroup)) return done(group);
    this.afterWrite(group, req, group.heartbeat(req), done);
  }

  /** getOrMaybeCreateConsumerGroup: the group, or the error the heartbeat gets. */
  private getOrMaybeCreateConsumerGroup(
    req: ConsumerGroupHeartbeatRequest,
  ): ConsumerGroup | ConsumerGroupHeartbeatResponse {
    const existing = this.consumerGroups.get(req.groupId);
    if (existing) return existing;
    const classic = this.groups.get(req.groupId);
    if (req.memberEpoch !== 0) {
      // Kafka answers GROUP_ID_NOT_FOUND; kafkasim tells the member it is unknown, and it rejoins (the group can
      // only be missing here if its records were lost with an unreplicated __consumer_offsets log).
      return heartbeatErrorResponse(
        'UNKNOWN_MEMBER_ID',
        `Member ${req.memberId} is not a member of group ${req.groupId}.`,
      );
    }
    const refusal =
      classic && classic.members.size > 0 ? upgradeRefusal(classic, this.ctx.consumerConfig) : null;
    if (refusal !== null) {
      this.ctx.broker.emit('group.conversion-refused', {
        group: req.groupId,
        to: 'consumer',
        reason: refusal,
      });
      return heartbeatErrorResponse('GROUP_ID_NOT_FOUND', `Group ${req.groupId} is not a consumer group.`);
    }
    const group = new ConsumerGroup(req.groupId, this.consumerGroupHost);
    if (classic) this.convertToConsumerGroup(classic, group);
    this.consumerGroups.set(req.groupId, group);
    return group;
  }

  /** convertToConsumerGroup: members parked in a rebalance hear REBALANCE_IN_PROGRESS and rejoin. */
  private convertToConsumerGroup(classic: ClassicGroup, group: ConsumerGroup): void {
    const converted = consumerGroupFromClassic(classic, this.ctx.broker.image);
    classic.unload('REBALANCE_IN_PROGRESS');
    this.groups.delete(classic.groupId);
    group.restore(converted);
    // The classic group's record is deleted (a tombstone).
    this.ctx.write([groupMetadataRecord(classic.groupId, null)], () => {});
    this.ctx.broker.emit('group.converted', {
      group: classic.groupId,
      from: 'classic',
      to: 'consumer',
      members: converted.members.size,
      epoch: classic.generationId,
    });
  }

  /** convertToClassicGroup, when the leaving member is the last one of the consumer protocol (group-migration.ts). */
  private convertToClassicGroup(group: ConsumerGroup, leavingMemberId: string): boolean {
    if (!this.ctx.active() || this.consumerGroups.get(group.groupId) !== group) return false;
    if (!downgradeAllowed(group, leavingMemberId, this.ctx.consumerConfig, this.ctx.config['group.max.size']))
      return false;
    const value = classicValueOf(group, leavingMemberId, this.ctx.broker.image);
    group.unload();
    this.writeConsumerGroup(group, undefined, true);
    this.consumerGroups.delete(group.groupId);
    const classic = new ClassicGroup(group.groupId, this.groupHost, value);
    this.groups.set(group.groupId, classic);
    this.ctx.broker.emit('group.converted', {
      group: group.groupId,
      from: 'consumer',
      to: 'classic',
      members: value.members.length,
      generation: value.generation,
    });
    this.writeClassicGroup(classic, () => {});
    classic.prepareRebalance(`Downgrade group ${group.groupId} from consumer to classic.`);
    return true;
  }

  // ---- the groups' records ---------------------------------------------------------------------------------

  /**
   * Writes what changed in a consumer group's records since they were last written (all tombstones when `gone`),
   * then `done` gets the append's error code (at once when nothing changed).
   */
  private writeConsumerGroup(group: ConsumerGroup, done?: (errorCode: number) => void, gone = false): void {
    if (!this.ctx.active() || (!gone && this.consumerGroups.get(group.groupId) !== group))
      return done?.(code('NOT_COORDINATOR'));
    const records = recordsToWrite(this.consumerRecords, group, gone);
    if (records.length === 0) return done?.(0);
    this.ctx.write(records, (e) => done?.(commitErrorOf(e)));
  }

  /** Kafka answers a request that changed a consumer group once its records are written. */
  private afterWrite<R extends { errorCode: number }>(
    group: ConsumerGroup,
    req: GroupRequest,
    response: R,
    done: (r: R) => void,
  ): void {
    this.writeConsumerGroup(group, (errorCode) =>
      done(errorCode === 0 ? response : (errorResponse(req, errorCode) as R)),
    );
  }

  /** A classic group's GroupMetadata record (storeGroup). */
  private writeClassicGroup(group: ClassicGroup, done: (errorCode: number) => void): void {
    if (!this.ctx.active() || this.groups.get(group.groupId) !== group) return done(code('NOT_COORDINATOR'));
    this.ctx.write([groupMetadataRecord(group.groupId, group.toRecord())], (e) => done(commitErrorOf(e)));
  }
}
