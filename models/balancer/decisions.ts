/**
 * What the balancer decided and why, as plain data: every detect produces a DetectReport, and each entry is
 * also emitted as a trace event (`balancer.<kind>`), so that a learner can follow a run step by step.
 */
import type { PartitionMove } from './action.ts';

export interface CandidateScore {
  destBrokerId: number;
  /** The current goal's group score, or -1. */
  score: number;
  /** Every goal's own score for this move. */
  scores: Record<string, number>;
  /** Why it was not taken, when it was rejected outright or scored too low. */
  reason?: string;
}

export type BalancerDecision =
  | {
      kind: 'band';
      goal: string;
      group: string;
      /** The goal's own view (avg, band bounds, threshold, ...). */
      band: Record<string, unknown>;
      eligibleBrokers: number[];
      ineligibleBrokers: { brokerId: number; reason: string }[];
    }
  | {
      kind: 'violation';
      goal: string;
      brokerId: number;
      load: number;
      /** 'less': above the band; 'more': below it. */
      need: 'less' | 'more';
    }
  | { kind: 'skip-broker'; goal: string; brokerId: number; reason: string }
  | {
      kind: 'candidates';
      goal: string;
      topic: string;
      partition: number;
      srcBrokerId: number;
      candidates: CandidateScore[];
      /** The destination taken, or null. */
      chosen: number | null;
      score?: number;
      reason?: string;
    }
  | {
      kind: 'trivial';
      goal: string;
      brokerId: number;
      loadChange: number;
      limit: number;
      undone: PartitionMove[];
    }
  | { kind: 'balance-failed'; goal: string; brokerId: number; load: number; reason: string }
  | { kind: 'goal-done'; goal: string; actions: PartitionMove[] };

export interface BrokerStatus {
  brokerId: number;
  rack: string | null;
  /** Bytes/s as the model holds them (latest reported one-minute rates). */
  bytesIn: number;
  bytesOut: number;
  partitions: number;
  /** Why the broker is ineligible (metrics out of date), if it is. */
  outOfDate?: string;
  slow: boolean;
}

export interface BatchReport {
  index: number;
  time: number;
  moves: PartitionMove[];
  /** Moves the executor dropped (destination fenced) and the reassignment errors it got back. */
  skipped: { move: PartitionMove; reason: string }[];
  errors: { move: PartitionMove; error: string }[];
  committedAt?: number;
}

export interface DetectReport {
  /** 1, 2, ... per balancer incarnation. */
  sequence: number;
  time: number;
  /** The controller that ran it (with a KRaft quorum, where the balancer moves with the active controller). */
  controller?: string;
  /** Why nothing was detected (not the active controller, disabled), if so. */
  skipped?: string;
  goals: string[];
  brokers: BrokerStatus[];
  excludedBrokers: number[];
  excludedTopics: string[];
  decisions: BalancerDecision[];
  /** The merged moves, in execution order. */
  moves: PartitionMove[];
  batches: BatchReport[];
  /** True when execution stopped at the 60 s limit with batches left. */
  executionTimedOut: boolean;
  finishedAt?: number;
}
