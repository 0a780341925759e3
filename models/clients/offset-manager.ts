// A group member's offsets (kafkajs' offsetManager, Java's ConsumerCoordinator commit path): the position the
// application has consumed to per owned partition, what a commit stores (OffsetCommit), and the committed offsets
// new partitions start from (OffsetFetch; without one, auto.offset.reset applies).
import {
  brokerNodeId,
  type ErrorName,
  Errors,
  errorByCode,
  type OffsetCommitResponse,
  type OffsetFetchResponse,
} from '../protocol/index.ts';
import type { NodeId, RequestOutcome, Timer } from '../sim/index.ts';
import type { ConsumerConfig } from './config.ts';
import type { PartitionState } from './fetcher.ts';
import type { GroupConsumerConfig } from './group-consumer-config.ts';
import type { MemberIdentity } from './member-identity.ts';
import type { TopicPartitionRef } from './topic-partition-key.ts';
import { keyOf } from './topic-partition-key.ts';

/** What the offset manager needs from its member. */
export interface OffsetManagerHost {
  readonly groupId: string;
  readonly config: ConsumerConfig;
  readonly groupConfig: GroupConsumerConfig;
  readonly member: MemberIdentity;
  /** The owned partitions (the fetcher's assignment). */
  assignment(): ReadonlyMap<string, PartitionState>;
  request<R>(to: NodeId, payload: unknown, cb: (o: RequestOutcome<R>) => void, timeoutMs: number): void;
  schedule(delay: number, fn: () => void, label: string): Timer;
  emit(kind: string, fields: Record<string, unknown>): void;
  countError(code: number): void;
  findCoordinator(): void;
  markCoordinatorUnknown(why: string): void;
  onGroupError(name: ErrorName, generationAtRequest: number, what: string): void;
  /** The fetcher may fetch again (positions became known). */
  kick(): void;
}

export class OffsetManager {
  /** Offsets this member committed successfully (`topic-partition` → offset). */
  readonly committed = new Map<string, number>();
  commitFailures = 0;
  /** Next offset the application gets per owned partition: what a commit stores. */
  private consumed = new Map<string, number>();
  /** Partitions whose committed offset is being fetched. */
  private awaitingCommitted = new Set<string>();

  constructor(private readonly host: OffsetManagerHost) {}

  /** A restart: no positions, nothing being fetched (what was committed stays counted). */
  reset(): void {
    this.consumed = new Map();
    this.awaitingCommitted = new Set();
  }

  /** The offset the next commit would store for partition `key`. */
  position(key: string): number | undefined {
    return this.consumed.get(key);
  }

  setPosition(key: string, offset: number): void {
    this.consumed.set(key, offset);
  }

  /** A new partition: its committed offset is fetched before it is reset or fetched from. */
  expectCommitted(key: string): void {
    this.awaitingCommitted.add(key);
  }

  /** A seek: the partition's committed offset no longer matters. */
  cancelCommittedFetch(key: string): void {
    this.awaitingCommitted.delete(key);
  }

  /** A partition given up: its position is forgotten. */
  forget(key: string): void {
    this.consumed.delete(key);
    this.awaitingCommitted.delete(key);
  }

  /** Commits the application's positions of every owned partition (commitAsync). */
  commit(cb?: (errorCode: number) => void): void {
    const offsets: { topic: string; partition: number; offset: number }[] = [];
    for (const st of this.host.assignment().values()) {
      const offset = this.consumed.get(keyOf(st));
      if (offset !== undefined) offsets.push({ topic: st.topic, partition: st.partition, offset });
    }
    this.commitOffsets(offsets, cb);
  }

  /** Commits explicit offsets (commitAsync(Map)); `cb` gets the first error code, 0 on success. */
  commitOffsets(
    offsets: { topic: string; partition: number; offset: number }[],
    cb?: (errorCode: number) => void,
  ): void {
    const host = this.host;
    const member = host.member;
    const state = member.memberState;
    if (member.coordinatorId === undefined || (state !== 'Stable' && state !== 'Preparing')) {
      // Java: a member that is not Stable cannot commit (generationIfStable() is null).
      this.commitFailures++;
      host.emit('member.commit-failed', { group: host.groupId, reason: `member is ${state}` });
      cb?.(Errors.REBALANCE_IN_PROGRESS.code);
      return;
    }
    if (offsets.length === 0) return cb?.(0);
    const generationId = member.generationId;
    host.request<OffsetCommitResponse>(
      brokerNodeId(member.coordinatorId),
      {
        type: 'OffsetCommit',
        groupId: host.groupId,
        generationId,
        memberId: member.memberId,
        groupInstanceId: host.groupConfig['group.instance.id'],
        offsets,
      },
      (o) => {
        if (!o.ok) {
          host.markCoordinatorUnknown(`OffsetCommit ${o.error}`);
          this.commitFailures++;
          return cb?.(Errors.COORDINATOR_NOT_AVAILABLE.code);
        }
        const failed = o.response.partitions.find((p) => p.errorCode !== 0);
        if (!failed) {
          for (const p of offsets) this.committed.set(keyOf(p), p.offset);
          return cb?.(0);
        }
        this.commitFailures++;
        const name = errorByCode(failed.errorCode).name;
        host.countError(failed.errorCode);
        host.emit('member.commit-failed', { group: host.groupId, error: name });
        host.onGroupError(name, generationId, 'OffsetCommit');
        cb?.(failed.errorCode);
      },
      host.config['request.timeout.ms'],
    );
  }

  /** OffsetFetch for new partitions: committed offsets become positions; the rest reset by auto.offset.reset. */
  fetchCommitted(partitions: readonly TopicPartitionRef[]): void {
    const host = this.host;
    const wanted = partitions.filter((tp) => this.awaitingCommitted.has(keyOf(tp)));
    if (wanted.length === 0) return;
    const retry = () =>
      host.schedule(
        host.config['retry.backoff.ms'],
        () => this.fetchCommitted(wanted.filter((tp) => this.awaitingCommitted.has(keyOf(tp)))),
        'member.offset-fetch-retry',
      );
    const coordinatorId = host.member.coordinatorId;
    if (coordinatorId === undefined) {
      host.findCoordinator();
      return void retry();
    }
    host.request<OffsetFetchResponse>(
      brokerNodeId(coordinatorId),
      {
        type: 'OffsetFetch',
        groupId: host.groupId,
        partitions: wanted.map(({ topic, partition }) => ({ topic, partition })),
      },
      (o) => {
        if (!o.ok || o.response.errorCode !== 0) {
          if (!o.ok) host.markCoordinatorUnknown(`OffsetFetch ${o.error}`);
          else
            host.onGroupError(
              errorByCode(o.response.errorCode).name,
              host.member.generationId,
              'OffsetFetch',
            );
          return void retry();
        }
        const assignment = host.assignment();
        for (const p of o.response.partitions) {
          const key = keyOf(p);
          const st = assignment.get(key);
          if (!st || !this.awaitingCommitted.delete(key)) continue;
          st.resetting = false;
          if (p.offset >= 0) {
            st.position = p.offset;
            this.consumed.set(key, p.offset);
          }
        }
        host.kick();
      },
      host.config['request.timeout.ms'],
    );
  }
}
