// The per-state answers of the classic protocol (Kafka's ClassicGroupState and GroupMetadataManager) as decision
// tables.
import { describe, expect, it } from 'vitest';
import {
  type ClassicGroupState,
  heartbeatDecision,
  joinGroupDecision,
  offsetCommitDecision,
  syncGroupDecision,
  validPreviousStates,
} from '../../../models/group/index.ts';

const ok = { known: true, generationMatches: true };
const states: ClassicGroupState[] = ['Empty', 'PreparingRebalance', 'CompletingRebalance', 'Stable', 'Dead'];

describe('classic group state rules', () => {
  it('transitions only from the valid previous states', () => {
    expect(validPreviousStates.Empty).toEqual(['PreparingRebalance']);
    expect(validPreviousStates.CompletingRebalance).toEqual(['PreparingRebalance']);
    expect(validPreviousStates.Stable).toEqual(['CompletingRebalance']);
    expect([...validPreviousStates.PreparingRebalance].sort()).toEqual([
      'CompletingRebalance',
      'Empty',
      'Stable',
    ]);
  });

  it('Heartbeat: REBALANCE_IN_PROGRESS only while preparing a rebalance', () => {
    expect(states.map((s) => heartbeatDecision(s, ok))).toEqual([
      'UNKNOWN_MEMBER_ID',
      'REBALANCE_IN_PROGRESS',
      'NONE',
      'NONE',
      'COORDINATOR_NOT_AVAILABLE',
    ]);
    expect(heartbeatDecision('Stable', { known: false, generationMatches: true })).toBe('UNKNOWN_MEMBER_ID');
    expect(heartbeatDecision('Stable', { known: true, generationMatches: false })).toBe('ILLEGAL_GENERATION');
  });

  it('SyncGroup: parked while completing, answered when stable, refused otherwise', () => {
    expect(states.map((s) => syncGroupDecision(s, ok))).toEqual([
      'UNKNOWN_MEMBER_ID',
      'REBALANCE_IN_PROGRESS',
      'park',
      'current-assignment',
      'COORDINATOR_NOT_AVAILABLE',
    ]);
    expect(syncGroupDecision('CompletingRebalance', { known: true, generationMatches: false })).toBe(
      'ILLEGAL_GENERATION',
    );
  });

  it('OffsetCommit: admin commits only while Empty, REBALANCE_IN_PROGRESS while completing', () => {
    const admin = { generationId: -1, memberId: '', groupInstanceId: null };
    const member = { generationId: 3, memberId: 'm', groupInstanceId: null };
    const unknown = { known: false, generationMatches: false };
    expect(offsetCommitDecision('Empty', admin, unknown)).toBe('NONE');
    expect(offsetCommitDecision('Stable', admin, unknown)).toBe('UNKNOWN_MEMBER_ID');
    expect(offsetCommitDecision('Empty', member, unknown)).toBe('UNKNOWN_MEMBER_ID');
    expect(offsetCommitDecision('Stable', member, { known: true, generationMatches: false })).toBe(
      'ILLEGAL_GENERATION',
    );
    expect(offsetCommitDecision('CompletingRebalance', member, ok)).toBe('REBALANCE_IN_PROGRESS');
    // Members commit while the next rebalance is being prepared (eager revoke commits).
    expect(offsetCommitDecision('PreparingRebalance', member, ok)).toBe('NONE');
    expect(offsetCommitDecision('Stable', member, ok)).toBe('NONE');
    expect(offsetCommitDecision('Dead', member, ok)).toBe('COORDINATOR_NOT_AVAILABLE');
  });

  it('JoinGroup of a known member: the leader or changed metadata rebalances a Stable group', () => {
    const m = { known: true, pending: false, isLeader: false, metadataChanged: false };
    expect(joinGroupDecision('Stable', m)).toBe('current-generation');
    expect(joinGroupDecision('Stable', { ...m, isLeader: true })).toBe('rebalance');
    expect(joinGroupDecision('Stable', { ...m, metadataChanged: true })).toBe('rebalance');
    expect(joinGroupDecision('CompletingRebalance', m)).toBe('current-generation');
    expect(joinGroupDecision('CompletingRebalance', { ...m, metadataChanged: true })).toBe('rebalance');
    expect(joinGroupDecision('PreparingRebalance', m)).toBe('park');
    expect(joinGroupDecision('Empty', { ...m, known: false, pending: true })).toBe('park');
    expect(joinGroupDecision('Stable', { ...m, known: false })).toBe('UNKNOWN_MEMBER_ID');
    expect(joinGroupDecision('Dead', m)).toBe('COORDINATOR_NOT_AVAILABLE');
  });
});
