/**
 * The goal interface (AutoMQ's `Goal`, `AbstractGoal`) and how a candidate action is judged against every
 * goal at once (`AbstractGoal.calculateCandidateActionScores`):
 *
 * - each goal scores the action: -1 not acceptable, 0.5 neutral, above 0.5 better for it, below worse;
 * - any -1 rejects the action;
 * - goals are grouped; a group's score is the weighted mean of its goals' scores (AutoMQ's two network goals
 *   share a group, so their scores are averaged);
 * - a group scoring below 0.5 rejects the action if one of its goals has already been optimized in this pass;
 * - the score that decides is the current goal's group score, and an action is taken only above 0.5.
 *
 * A user goal implements `Goal` (or extends `UsageDistributionGoal`) and is added to the balancer's list.
 */
import type { Action } from './action.ts';
import type { AutoBalancerConfig } from './config.ts';
import type { BalancerDecision } from './decisions.ts';
import type { ClusterSnapshot, SnapshotBroker } from './snapshot.ts';

export const NOT_ACCEPTABLE = -1;
export const POSITIVE_ACTION_SCORE_THRESHOLD = 0.5;

export interface Goal {
  /** Unique in a goal list; shown in decisions. */
  readonly name: string;
  /** Goals of one group are scored together (weighted mean). */
  readonly group: string;
  readonly weight: number;
  /** Hard goals run before soft ones (AutoMQ ships only soft goals). */
  readonly hard: boolean;
  /** Reads settings; called before every detect so that runtime config changes apply. */
  configure?(config: AutoBalancerConfig): void;
  /** Whether the goal balances over this broker (AutoMQ: its metrics are not out of date). */
  isEligibleBroker(broker: SnapshotBroker): boolean;
  /** Once per detect, before any goal optimizes: compute the band over the eligible brokers. */
  initialize(snapshot: ClusterSnapshot, eligible: readonly SnapshotBroker[]): void;
  /** Chooses actions, applying each to `run.snapshot`; `run.score` judges a candidate against every goal. */
  optimize(run: GoalRun): Action[];
  /** -1 not acceptable; 0.5 neutral; (0.5, 1] improves this goal; [0, 0.5) worsens it. */
  actionAcceptanceScore(action: Action, snapshot: ClusterSnapshot): number;
  /** The goal's band and settings, for decisions. */
  describe?(): Record<string, unknown>;
}

/** Why a candidate was rejected, and every goal's score, when the caller asks for it. */
export interface ScoreDetail {
  scores: Record<string, number>;
  groupScores: Record<string, number>;
  reason?: string;
}

/** One goal's turn in a detect pass. */
export class GoalRun {
  private readonly groups: { name: string; members: Goal[]; optimized: boolean; own: boolean }[] = [];

  constructor(
    readonly snapshot: ClusterSnapshot,
    readonly goal: Goal,
    /** Every goal of the pass, by priority. */
    readonly goals: readonly Goal[],
    /** Goals that have already optimized in this pass. */
    readonly optimizedGoals: readonly Goal[],
    /** Receives every decision when the caller records them (a trace); absent, nothing is built. */
    readonly record?: (decision: BalancerDecision) => void,
  ) {
    const optimized = new Set(optimizedGoals.map((g) => g.group));
    for (const g of goals) {
      const group = this.groups.find((x) => x.name === g.group);
      if (group) group.members.push(g);
      else {
        this.groups.push({
          name: g.group,
          members: [g],
          optimized: optimized.has(g.group),
          own: g.group === goal.group,
        });
      }
    }
  }

  /** The action's score for the current goal's group, or -1; fills `detail` when given. */
  score(action: Action, detail?: ScoreDetail): number {
    const snapshot = this.snapshot;
    let ownScore = NOT_ACCEPTABLE;
    for (const { name: group, members, optimized, own } of this.groups) {
      let total = 0;
      let weights = 0;
      for (const g of members) {
        const s = g.actionAcceptanceScore(action, snapshot);
        if (detail) detail.scores[g.name] = s;
        if (s === NOT_ACCEPTABLE) {
          if (detail) detail.reason = `${g.name} does not accept it`;
          return NOT_ACCEPTABLE;
        }
        total += s * g.weight;
        weights += g.weight;
      }
      const groupScore = weights > 0 ? total / weights : POSITIVE_ACTION_SCORE_THRESHOLD;
      if (detail) detail.groupScores[group] = groupScore;
      if (groupScore < POSITIVE_ACTION_SCORE_THRESHOLD && optimized) {
        if (detail) detail.reason = `it makes the already optimized group ${group} worse`;
        return NOT_ACCEPTABLE;
      }
      if (own) ownScore = groupScore;
    }
    if (detail && !(ownScore > POSITIVE_ACTION_SCORE_THRESHOLD)) {
      detail.reason = `group ${this.goal.group} score ${ownScore.toFixed(4)} is not above 0.5`;
    }
    return ownScore;
  }

  /**
   * AutoMQ's tryMovePartitionOut: scores a MOVE of `p` to each candidate and returns the best one above 0.5
   * (the first of equal best, as Java's Stream.max keeps), or undefined.
   */
  bestMove(p: number, candidates: readonly SnapshotBroker[]): Action | undefined {
    let best: Action | undefined;
    let bestScore = POSITIVE_ACTION_SCORE_THRESHOLD;
    const traced = this.record
      ? ([] as { destBrokerId: number; score: number; scores: Record<string, number>; reason?: string }[])
      : undefined;
    // One scratch action for all candidates: scoring allocates nothing per candidate.
    const scratch = this.snapshot.moveAction(p, -1) as { -readonly [K in keyof Action]: Action[K] };
    for (const c of candidates) {
      scratch.destBrokerId = c.brokerId;
      const detail: ScoreDetail | undefined = traced ? { scores: {}, groupScores: {} } : undefined;
      const s = this.score(scratch, detail);
      if (traced && detail) {
        traced.push({
          destBrokerId: c.brokerId,
          score: s,
          scores: detail.scores,
          ...(detail.reason ? { reason: detail.reason } : {}),
        });
      }
      if (s > bestScore) {
        best = { ...scratch };
        bestScore = s;
      }
    }
    if (this.record && traced) {
      this.record({
        kind: 'candidates',
        goal: this.goal.name,
        topic: this.snapshot.topic(p),
        partition: this.snapshot.partitionId(p),
        srcBrokerId: this.snapshot.owner(p).brokerId,
        candidates: traced,
        chosen: best ? best.destBrokerId : null,
        ...(best ? { score: bestScore } : { reason: 'no candidate scored above 0.5' }),
      });
    }
    return best;
  }
}

/** Hard goals first, otherwise in the configured order (a stable sort, as AutoMQ's Collections.sort). */
export function goalsByPriority(goals: readonly Goal[]): Goal[] {
  return [...goals].sort((a, b) => Number(b.hard) - Number(a.hard));
}
