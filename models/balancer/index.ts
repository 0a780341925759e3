/**
 * AutoMQ's continuous self-balancing (the auto-balancer): brokers report each partition's bytes-in and bytes-out
 * one-minute rates; the active controller keeps the latest values, detects every minute whether any broker is
 * outside its goals' band, picks partition moves with the goals' scores, and executes them in batches of
 * AlterPartitionReassignments. Goals are pluggable: a user goal implements `Goal` (or extends
 * `UsageDistributionGoal`) and joins or replaces the list.
 *
 * Left out: the `__auto_balancer_metrics` topic (reports go straight to the controller), SWAP actions (dead
 * code in AutoMQ), circuit-breaker "locked" nodes, PARTITION_SIZE and CPU metrics, metric versions, and the
 * fast-reassignment handoff (PR #3495).
 *
 * Facts: AutoMQ/automq's `core/src/main/java/kafka/autobalancer/` sources named in each file, AutoMQ's example
 * (https://docs.automq.com/automq/getting-started/example-continuous-data-self-balancing), and Yammer metrics' EWMA
 * for the rates.
 */

export {
  AUTO_BALANCER_METRICS,
  type AutoBalancerMetricsRequest,
  type AutoBalancerMetricsResponse,
  type PartitionMetrics,
} from '../protocol/auto-balancer-metrics.ts';
export type { Action, PartitionMove } from './action.ts';
export { describeMove } from './action.ts';
export { type BatchLimits, groupMoves, mergeMoves } from './action-batching.ts';
export { AutoBalancer, type AutoBalancerOptions } from './auto-balancer.ts';
export {
  type BrokerReport,
  ClusterModel,
  type ModelBroker,
  type ModelPartition,
  type SnapshotOptions,
} from './cluster-model.ts';
export {
  type AutoBalancerConfig,
  AutoBalancerConfigError,
  type AutoBalancerConfigInput,
  type AutoBalancerConfigKey,
  CLUSTER_STATS_INTERVAL_MS,
  DEFAULT_AUTO_BALANCER_CONFIG,
  isAutoBalancerKey,
  MAX_PARTITION_REASSIGNMENT_RATIO,
  MAX_REASSIGNMENT_EXECUTION_TIME_MS,
  MAX_REASSIGNMENT_SOURCE_NODE_COUNT,
  METER_TICK_MS,
  NETWORK_IN_GOAL,
  NETWORK_OUT_GOAL,
  parseAutoBalancerOverrides,
  resolveAutoBalancerConfig,
  SLOW_BROKER_LATENCY_MS,
  STATIC_AUTO_BALANCER_KEYS,
} from './config.ts';
export { decisionLogLines } from './decision-log.ts';
export type {
  BalancerDecision,
  BatchReport,
  BrokerStatus,
  CandidateScore,
  DetectReport,
} from './decisions.ts';
export { createDetectorMachine, type DetectorHost } from './detector-machine.ts';
export {
  type Goal,
  GoalRun,
  goalsByPriority,
  NOT_ACCEPTABLE,
  POSITIVE_ACTION_SCORE_THRESHOLD,
  type ScoreDetail,
} from './goal.ts';
export { createGoals, type GoalFactory, registeredGoalNames, registerGoal } from './goal-registry.ts';
export { ONE_MINUTE_ALPHA, OneMinuteRate } from './meter.ts';
export { AutoBalancerMetricsReporter, type MetricsReporterOptions } from './metrics-reporter.ts';
export {
  NETWORK_USAGE_DISTRIBUTION_GROUP,
  NetworkInUsageDistributionGoal,
  NetworkOutUsageDistributionGoal,
} from './network-goals.ts';
export { LinearNormalizer, type Normalizer, StepNormalizer } from './normalizer.ts';
export { type OptimizeOptions, optimize } from './optimizer.ts';
export { ReplicaCountDistributionGoal } from './replica-count-distribution-goal.ts';
export {
  ClusterSnapshot,
  type Resource,
  SnapshotBroker,
  type SnapshotBrokerInput,
  type SnapshotPartitionInput,
} from './snapshot.ts';
export { toMove, UsageDistributionGoal, type UsageDistributionSettings } from './usage-distribution-goal.ts';
