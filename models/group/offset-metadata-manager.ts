// The committed offsets of one __consumer_offsets partition's groups, mirroring Kafka's OffsetMetadataManager:
// OffsetCommit (checked against the group first: a classic group's generation and member, a consumer group's member
// epoch; a commit from outside any group creates an empty classic group), the OffsetCommit records it writes
// (offsets-records.ts), OffsetFetch, and the offsets rebuilt from those records when the shard loads (replay).
// Facts: apache/kafka group-coordinator/.../OffsetMetadataManager (commitOffset, validateOffsetCommit, fetchOffsets,
// fetchAllOffsets, replay).

import {
  type ErrorName,
  Errors,
  type OffsetCommitRequest,
  type OffsetCommitResponse,
  type OffsetFetchRequest,
  type OffsetFetchResponse,
} from '../protocol/index.ts';
import { commitErrorOf, consumerGroupCommitDecision } from './coordinator-answers.ts';
import type { ShardContext } from './coordinator-shard.ts';
import type { GroupMetadataManager } from './group-metadata-manager.ts';
import { offsetCommitDecision } from './group-state.ts';
import { offsetCommitRecord, offsetKey } from './offsets-records.ts';

const code = (name: ErrorName) => Errors[name].code;

export class OffsetMetadataManager {
  /** groupId → (`topic\u0000partition` → committed offset). */
  private readonly offsets = new Map<string, Map<string, number>>();

  constructor(
    private readonly ctx: ShardContext,
    private readonly groups: GroupMetadataManager,
  ) {}

  /** A group's offsets as its OffsetCommit records left them. */
  replay(groupId: string, offsets: Map<string, number>): void {
    if (offsets.size > 0) this.offsets.set(groupId, offsets);
  }

  /** A group's committed offsets (`topic\u0000partition` → offset). */
  committedOffsets(groupId: string): ReadonlyMap<string, number> | undefined {
    return this.offsets.get(groupId);
  }

  commitOffset(req: OffsetCommitRequest, done: (r: OffsetCommitResponse) => void): void {
    const answer = (errorCode: number) =>
      done({ partitions: req.offsets.map((o) => ({ topic: o.topic, partition: o.partition, errorCode })) });
    const error = this.validateOffsetCommit(req);
    if (error !== 'NONE') return answer(code(error));
    if (req.offsets.length === 0) return answer(0);
    const records = req.offsets.map((o) => offsetCommitRecord(req.groupId, o.topic, o.partition, o.offset));
    this.ctx.write(records, (appendError) => {
      const errorCode = commitErrorOf(appendError);
      if (errorCode === 0 && this.ctx.active()) {
        let offsets = this.offsets.get(req.groupId);
        if (!offsets) this.offsets.set(req.groupId, (offsets = new Map()));
        for (const o of req.offsets) offsets.set(offsetKey(o.topic, o.partition), o.offset);
      }
      answer(errorCode);
    });
  }

  /** The group's check of a commit; a classic member's commit also counts as a sign of life for its session. */
  private validateOffsetCommit(req: OffsetCommitRequest): ErrorName | 'NONE' {
    const consumerGroup = this.groups.consumerGroups.get(req.groupId);
    if (consumerGroup) return consumerGroupCommitDecision(consumerGroup, req);
    // A member's commit to a group the coordinator does not know (e.g. lost with an unreplicated log).
    if (!this.groups.groups.has(req.groupId) && (req.generationId >= 0 || req.memberId !== ''))
      return 'ILLEGAL_GENERATION';
    const g = this.groups.getOrMaybeCreateClassicGroup(req.groupId);
    const member = g.members.get(req.memberId);
    const decision = offsetCommitDecision(g.state, req, {
      known: member !== undefined,
      generationMatches: req.generationId === g.generationId,
    });
    if (decision === 'NONE' && member) g.touch(member.memberId);
    return decision;
  }

  /** OffsetFetch: the partitions asked for (all the group has when none), -1 for no committed offset. */
  fetchOffsets(req: OffsetFetchRequest): OffsetFetchResponse {
    const offsets = this.offsets.get(req.groupId);
    const wanted =
      req.partitions ??
      [...(offsets?.keys() ?? [])].map((k) => {
        const i = k.lastIndexOf('\u0000');
        return { topic: k.slice(0, i), partition: Number(k.slice(i + 1)) };
      });
    return {
      errorCode: 0,
      partitions: wanted.map(({ topic, partition }) => ({
        topic,
        partition,
        offset: offsets?.get(offsetKey(topic, partition)) ?? -1,
        errorCode: 0,
      })),
    };
  }
}
