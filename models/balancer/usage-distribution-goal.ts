/**
 * A goal that keeps every broker's load inside a band around the average: AutoMQ's
 * `AbstractResourceUsageDistributionGoal` with `AbstractResourceDistributionGoal` and `AbstractResourceGoal`
 * (`goals/`). The built-in network goals and user goals (e.g. a replica count goal) extend it by
 * saying what a broker's and a partition's load are.
 *
 * - Band, once per detect over the eligible brokers: avg = Σload/n, [max(0, avg·(1−d)), avg·(1+d)]; a broker
 *   is acceptable if (load < T and avg < T) or it is inside the band (T: the detect threshold).
 * - Broker score: 1 within avg·d of the average, else 1 − N(|load − avg|) with a StepNormalizer that is linear
 *   up to avg·d + L (reaching 0.9) and logarithmic beyond (L: the normalizer range).
 * - Action score: −1 if invalid (unknown broker or replica, excluded topic, untrusted load), 0.5 if either
 *   broker is ineligible, else (min(srcAfter, dstAfter) − min(srcBefore, dstBefore) + 1) / 2: the worse of the
 *   two brokers must get better, which forbids overshooting.
 * - Search, violating brokers in id order: above the band, its partitions heaviest first (internal topics last)
 *   go to the best-scoring non-slow candidate, candidates tried from the least loaded, until the broker is
 *   acceptable; below it (unless slow), candidates from the most loaded give their heaviest partitions.
 * - Trivial-change filter (PR #1449): when a broker's total change is below ratio·avg, its actions are undone.
 * - A broker still unbalanced afterwards is only reported: a partition heavier than the band stays put.
 */
import type { Action, PartitionMove } from './action.ts';
import type { AutoBalancerConfig } from './config.ts';
import { type Goal, type GoalRun, NOT_ACCEPTABLE, POSITIVE_ACTION_SCORE_THRESHOLD } from './goal.ts';
import { StepNormalizer } from './normalizer.ts';
import type { ClusterSnapshot, SnapshotBroker } from './snapshot.ts';

export interface UsageDistributionSettings {
  /** T: below it (for both the broker and the average) a broker is left alone. */
  detectThreshold: number;
  /** d: the band's half-width as a fraction of the average. */
  avgDeviation: number;
  /** A broker's total change below this fraction of the average is undone. */
  trivialChangeRatio: number;
}

export abstract class UsageDistributionGoal implements Goal {
  abstract readonly name: string;
  readonly hard: boolean = false;
  readonly weight: number = 1;
  abstract readonly group: string;
  settings: UsageDistributionSettings = { detectThreshold: 0, avgDeviation: 0.1, trivialChangeRatio: 0 };

  avg = 0;
  avgDeviation = 0;
  lowerBound = 0;
  upperBound = 0;
  private normalizer = new StepNormalizer(0, 1, 0.9);
  /** Per broker index: eligible for this goal in this detect. */
  private eligible = new Uint8Array(0);
  /** Per partition number: this goal's load (loads do not change while goals move partitions). */
  private loads: Float64Array<ArrayBufferLike> = new Float64Array(0);

  /** The broker's load for this goal. */
  protected abstract brokerLoad(broker: SnapshotBroker): number;
  /** Partition `p`'s load for this goal. */
  protected abstract partitionLoad(snapshot: ClusterSnapshot, p: number): number;
  /** L: where the broker score's linear part ends (beyond avg·d). */
  protected abstract linearNormalizerThreshold(): number;

  /** All partitions' loads at once, when the snapshot already holds them as a column (faster). */
  protected partitionLoadColumn(_snapshot: ClusterSnapshot): Float64Array<ArrayBufferLike> | undefined {
    return undefined;
  }

  /** Whether the partition's load is known (no metrics yet: not). */
  protected partitionLoadTrusted(snapshot: ClusterSnapshot, p: number): boolean {
    return snapshot.isTrusted(p);
  }

  /** Whether the broker's load is known: every one of its partitions'. */
  protected brokerLoadTrusted(broker: SnapshotBroker): boolean {
    return broker.trusted;
  }

  configure(_config: AutoBalancerConfig): void {}

  isEligibleBroker(broker: SnapshotBroker): boolean {
    return !broker.metricsOutOfDate;
  }

  initialize(snapshot: ClusterSnapshot, eligible: readonly SnapshotBroker[]): void {
    this.eligible = new Uint8Array(snapshot.brokers.length);
    for (const b of eligible) this.eligible[b.index] = 1;
    let loads = this.partitionLoadColumn(snapshot);
    if (!loads) {
      loads = new Float64Array(snapshot.partitionCount);
      for (let p = 0; p < loads.length; p++) loads[p] = this.partitionLoad(snapshot, p);
    }
    this.loads = loads;
    let total = 0;
    for (const b of eligible) total += this.brokerLoad(b);
    const d = this.settings.avgDeviation;
    this.avg = eligible.length > 0 ? total / eligible.length : 0;
    this.avgDeviation = this.avg * d;
    this.lowerBound = Math.max(0, this.avg * (1 - d));
    this.upperBound = this.avg * (1 + d);
    this.normalizer = new StepNormalizer(
      this.avgDeviation,
      this.avgDeviation + this.linearNormalizerThreshold(),
      0.9,
    );
  }

  describe(): Record<string, unknown> {
    return {
      avg: this.avg,
      lowerBound: this.lowerBound,
      upperBound: this.upperBound,
      detectThreshold: this.settings.detectThreshold,
      avgDeviation: this.settings.avgDeviation,
      trivialChangeRatio: this.settings.trivialChangeRatio,
      normalizerRange: this.linearNormalizerThreshold(),
    };
  }

  isLoadAcceptable(load: number): boolean {
    const t = this.settings.detectThreshold;
    if (load < t && this.avg < t) return true;
    return load >= this.lowerBound && load <= this.upperBound;
  }

  isBrokerAcceptable(broker: SnapshotBroker): boolean {
    return this.isLoadAcceptable(this.brokerLoad(broker));
  }

  /** 1 inside avg·d of the average, falling towards 0 as the deviation grows. */
  scoreOfLoad(load: number): number {
    const deviation = Math.abs(this.avg - load);
    if (deviation < this.avgDeviation) return 1;
    return 1 - this.normalizer.normalize(deviation);
  }

  brokerScore(broker: SnapshotBroker): number {
    return this.scoreOfLoad(this.brokerLoad(broker));
  }

  actionAcceptanceScore(action: Action, snapshot: ClusterSnapshot): number {
    const src = snapshot.broker(action.srcBrokerId);
    const dest = snapshot.broker(action.destBrokerId);
    const p = action.partition;
    if (!src || !dest || src === dest || p < 0 || p >= snapshot.partitionCount || snapshot.owner(p) !== src) {
      return NOT_ACCEPTABLE;
    }
    if (!snapshot.isMovable(p) || snapshot.followersOf(p).includes(dest.brokerId)) return NOT_ACCEPTABLE;
    if (!this.partitionLoadTrusted(snapshot, p)) return NOT_ACCEPTABLE;
    const load = this.loads[p]!;
    if (load !== 0 && (!this.brokerLoadTrusted(src) || !this.brokerLoadTrusted(dest))) return NOT_ACCEPTABLE;
    if (this.eligible[src.index] !== 1 || this.eligible[dest.index] !== 1)
      return POSITIVE_ACTION_SCORE_THRESHOLD;
    const srcLoad = this.brokerLoad(src);
    const destLoad = this.brokerLoad(dest);
    const before = Math.min(this.scoreOfLoad(srcLoad), this.scoreOfLoad(destLoad));
    const after = Math.min(this.scoreOfLoad(srcLoad - load), this.scoreOfLoad(destLoad + load));
    return (after - before + 1) / 2;
  }

  optimize(run: GoalRun): Action[] {
    const snapshot = run.snapshot;
    const eligible = snapshot.brokers.filter((b) => this.eligible[b.index] === 1);
    const actions: Action[] = [];
    const toOptimize: SnapshotBroker[] = [];
    for (const b of eligible) {
      if (this.isBrokerAcceptable(b)) continue;
      if (!this.brokerLoadTrusted(b)) {
        run.record?.({
          kind: 'skip-broker',
          goal: this.name,
          brokerId: b.brokerId,
          reason: 'untrusted load',
        });
        continue;
      }
      const load = this.brokerLoad(b);
      run.record?.({
        kind: 'violation',
        goal: this.name,
        brokerId: b.brokerId,
        load,
        need: load > this.upperBound ? 'less' : 'more',
      });
      toOptimize.push(b);
    }
    for (const broker of toOptimize) {
      if (this.isBrokerAcceptable(broker)) continue;
      const candidates = eligible.filter((b) => b !== broker);
      const load = this.brokerLoad(broker);
      let result: { actions: Action[]; loadChange: number } | undefined;
      if (load > this.upperBound) {
        result = this.tryReduceLoad(run, broker, candidates);
      } else if (load < this.lowerBound) {
        if (broker.slow) {
          run.record?.({
            kind: 'skip-broker',
            goal: this.name,
            brokerId: broker.brokerId,
            reason: `slow broker (pending latency ${Math.round(Math.max(broker.pendingAppendLatencyMs, broker.pendingFetchLatencyMs))} ms): it receives no partitions`,
          });
          continue;
        }
        result = this.tryIncreaseLoad(run, broker, candidates);
      }
      if (result) {
        const limit = this.settings.trivialChangeRatio * this.avg;
        if (Math.abs(result.loadChange) >= limit) actions.push(...result.actions);
        else {
          for (let i = result.actions.length - 1; i >= 0; i--) snapshot.undoAction(result.actions[i]!);
          if (result.actions.length > 0) {
            run.record?.({
              kind: 'trivial',
              goal: this.name,
              brokerId: broker.brokerId,
              loadChange: result.loadChange,
              limit,
              undone: result.actions.map(toMove),
            });
          }
        }
      }
      if (!this.isBrokerAcceptable(broker)) {
        run.record?.({
          kind: 'balance-failed',
          goal: this.name,
          brokerId: broker.brokerId,
          load: this.brokerLoad(broker),
          reason: 'still outside the band: no acceptable move is left',
        });
      }
    }
    return actions;
  }

  /** The broker's partitions, heaviest first, internal topics last; ties by partition number. */
  private heaviestFirst(snapshot: ClusterSnapshot, broker: SnapshotBroker): number[] {
    const loads = this.loads;
    const list = broker.replicas.filter((p) => snapshot.isMovable(p));
    let critical = false;
    for (const p of list) if (snapshot.isCritical(p)) critical = true;
    if (!critical) return list.sort((a, b) => loads[b]! - loads[a]! || a - b);
    return list.sort((a, b) => {
      const ca = snapshot.isCritical(a);
      if (ca !== snapshot.isCritical(b)) return ca ? 1 : -1;
      return loads[b]! - loads[a]! || a - b;
    });
  }

  private tryReduceLoad(
    run: GoalRun,
    broker: SnapshotBroker,
    candidates: SnapshotBroker[],
  ): { actions: Action[]; loadChange: number } {
    const actions: Action[] = [];
    const dests = candidates.filter((b) => !b.slow);
    if (dests.length === 0) return { actions, loadChange: 0 };
    const snapshot = run.snapshot;
    let loadChange = 0;
    for (const p of this.heaviestFirst(snapshot, broker)) {
      dests.sort((a, b) => this.brokerLoad(a) - this.brokerLoad(b) || a.brokerId - b.brokerId);
      const action = run.bestMove(p, dests);
      if (action) {
        snapshot.applyAction(action);
        actions.push(action);
        loadChange -= this.loads[p]!;
      }
      if (this.isBrokerAcceptable(broker)) break;
    }
    return { actions, loadChange };
  }

  private tryIncreaseLoad(
    run: GoalRun,
    broker: SnapshotBroker,
    candidates: SnapshotBroker[],
  ): { actions: Action[]; loadChange: number } {
    const actions: Action[] = [];
    const snapshot = run.snapshot;
    const sources = [...candidates].sort(
      (a, b) => this.brokerLoad(b) - this.brokerLoad(a) || a.brokerId - b.brokerId,
    );
    const into = [broker];
    let loadChange = 0;
    for (const source of sources) {
      for (const p of this.heaviestFirst(snapshot, source)) {
        const action = run.bestMove(p, into);
        if (action) {
          snapshot.applyAction(action);
          actions.push(action);
          loadChange += this.loads[p]!;
        }
        if (this.isBrokerAcceptable(broker)) return { actions, loadChange };
      }
    }
    return { actions, loadChange };
  }
}

export const toMove = (a: Action): PartitionMove => ({
  topic: a.topic,
  partition: a.partitionId,
  srcBrokerId: a.srcBrokerId,
  destBrokerId: a.destBrokerId,
});
