/**
 * AutoMQ's auto-balancer as a component on the controller node (AutoBalancerManager with its LoadRetriever,
 * AnomalyDetectorImpl and ControllerActionExecutorService, in AutoMQ/automq core/src/main/java/kafka/autobalancer/).
 * It:
 *
 * - serves the brokers' metrics reports (request type `AutoBalancerMetrics`) into its ClusterModel;
 * - runs the detector loop (detector-machine.ts) from each controller's start; a detect does anything only while
 *   that controller is active and `autobalancer.controller.enable` is true, so the balancer moves with the
 *   active controller and all its state is lost when the controller node goes down. With a KRaft quorum every
 *   controller runs the loop (AutoMQ builds the AnomalyDetector on each controller and only flips its `isLeader`
 *   flag on a Raft leader change: AnomalyDetectorImpl.onLeaderChanged); the controller that becomes active starts
 *   from an empty ClusterModel, and its first detect is the next tick of its own loop;
 * - turns each detect's actions into batches and executes each as one AlterPartitionReassignments, submitted
 *   inside the controller (replicas = [dest]; in kafka storage mode with RF > 1 the leader's replica is
 *   replaced by dest); moves to a destination that is no longer active are skipped;
 * - publishes ClusterStats to the controller every 30 s, which its shared-storage failover uses to weigh the
 *   brokers a fenced broker's partitions go to (controller/leader-selector.ts);
 * - records every decision in a DetectReport and as `balancer.*` trace events.
 *
 * Configuration: AutoMQ's keys and defaults (config.ts), overridden by the options, by `reconfigure()` at
 * runtime, and by cluster-wide dynamic broker configs (`kafka-configs --alter --entity-type brokers
 * --entity-default --add-config autobalancer...=...`) in the committed metadata, which win as in Kafka's
 * dynamic config precedence. Metrics-topic keys cannot change at runtime.
 */

import type { QuorumController } from '../controller/index.ts';
import { isActiveBroker, type MetadataImage } from '../metadata/index.ts';
import {
  type AlterPartitionReassignmentsResponse,
  AUTO_BALANCER_METRICS,
  type AutoBalancerMetricsRequest,
} from '../protocol/index.ts';
import type { NodeId } from '../sim/index.ts';
import type { PartitionMove } from './action.ts';
import { groupMoves, mergeMoves } from './action-batching.ts';
import { ClusterModel } from './cluster-model.ts';
import {
  type AutoBalancerConfig,
  AutoBalancerConfigError,
  type AutoBalancerConfigInput,
  CLUSTER_STATS_INTERVAL_MS,
  excludedBrokerIds,
  excludedTopics,
  isAutoBalancerKey,
  listValue,
  parseAutoBalancerOverrides,
  parseAutoBalancerValue,
  resolveAutoBalancerConfig,
  STATIC_AUTO_BALANCER_KEYS,
} from './config.ts';
import type { BalancerDecision, BatchReport, DetectReport } from './decisions.ts';
import { createDetectorMachine } from './detector-machine.ts';
import type { Goal } from './goal.ts';
import { createGoals } from './goal-registry.ts';
import { optimize } from './optimizer.ts';
import { toMove } from './usage-distribution-goal.ts';

export interface AutoBalancerOptions {
  /** AutoMQ keys; the rest keep AutoMQ's defaults. */
  config?: AutoBalancerConfigInput;
  /** Replaces the goals `autobalancer.controller.goals` names (user goals, or a different list). */
  goals?: readonly Goal[];
  /** DetectReports kept in memory (default 100). */
  historySize?: number;
  /** Emit each decision as a trace event (default true). */
  traceDecisions?: boolean;
}

type ActorRef = { send(event: { type: 'ABORT' }): void; getSnapshot(): { value: unknown } };

export class AutoBalancer {
  /** Every controller the balancer lives on (one, or the voters of the metadata quorum). */
  readonly controllers: readonly QuorumController[];
  #host: QuorumController;
  #actors = new Map<QuorumController, ActorRef>();
  #model = new ClusterModel();
  /** The most recent detects, oldest first. */
  readonly history: DetectReport[] = [];
  /** Every move sent in an AlterPartitionReassignments, whatever the history still holds. */
  readonly #executed: PartitionMove[] = [];
  private settings: AutoBalancerConfig;
  private dynamicSource: unknown;
  private dynamicOverrides: Partial<AutoBalancerConfig> = {};
  private customGoals: Goal[] | undefined;
  private configuredGoals: { names: string; goals: Goal[] } | undefined;
  private sequence = 0;
  private pending: PartitionMove[][] = [];
  private current: DetectReport | undefined;
  private readonly historySize: number;
  private readonly traceDecisions: boolean;
  private listeners: ((report: DetectReport) => void)[] = [];

  constructor(controller: QuorumController | readonly QuorumController[], options: AutoBalancerOptions = {}) {
    this.controllers = Array.isArray(controller) ? [...controller] : [controller as QuorumController];
    if (this.controllers.length === 0) throw new Error('the auto-balancer needs a controller');
    this.#host = this.controllers[0]!;
    this.settings = resolveAutoBalancerConfig(options.config);
    this.customGoals = options.goals ? [...options.goals] : undefined;
    if (!this.customGoals) this.goalsFor(this.settings);
    this.historySize = options.historySize ?? 100;
    this.traceDecisions = options.traceDecisions ?? true;
    for (const c of this.controllers) {
      c.addRequestHandler(AUTO_BALANCER_METRICS, (from, req, reply) =>
        this.onMetrics(from, req as AutoBalancerMetricsRequest, reply),
      );
      c.onLifecycle((event) => {
        if (event === 'start') this.start(c);
        else if (event === 'active') this.activate(c);
        else if (event === 'inactive') this.#actors.get(c)?.send({ type: 'ABORT' });
      });
      if (c.up) this.start(c);
      if (c.isActive) this.activate(c);
    }
  }

  /** The controller the balancer acts on: the active one, else the one that was active last. */
  get controller(): QuorumController {
    return this.#host;
  }

  private get quorum(): boolean {
    return this.controllers.length > 1;
  }

  /** The latest metrics, and the topology as of the controller's committed metadata; empty after a restart. */
  get model(): ClusterModel {
    this.#model.sync(this.controller.committedImage);
    return this.#model;
  }

  // ---- configuration ----------------------------------------------------------------------------------------

  /** The effective configuration: AutoMQ defaults < options and reconfigure() < dynamic cluster configs. */
  get config(): Readonly<AutoBalancerConfig> {
    this.refreshDynamic(this.controller.committedImage);
    return { ...this.settings, ...this.dynamicOverrides };
  }

  /** Changes settings at runtime (AutoMQ's reconfigure); validates everything first. */
  reconfigure(changes: AutoBalancerConfigInput): void {
    const parsed = parseAutoBalancerOverrides(changes);
    for (const key of Object.keys(parsed)) {
      if ((STATIC_AUTO_BALANCER_KEYS as readonly string[]).includes(key)) {
        throw new AutoBalancerConfigError(`${key} cannot be changed at runtime`);
      }
    }
    const next = { ...this.settings, ...parsed };
    if (parsed['autobalancer.controller.goals'] !== undefined && !this.customGoals) this.goalsFor(next);
    this.settings = next;
    this.controller.emit('balancer.reconfigure', { changes: { ...parsed } });
  }

  private refreshDynamic(image: MetadataImage): void {
    const source = image.configs.broker[''];
    if (source === this.dynamicSource) return;
    this.dynamicSource = source;
    const overrides: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(source ?? {})) {
      if (!isAutoBalancerKey(key) || (STATIC_AUTO_BALANCER_KEYS as readonly string[]).includes(key)) continue;
      try {
        overrides[key] = parseAutoBalancerValue(key, value);
        if (key === 'autobalancer.controller.goals')
          createGoals(String(overrides[key]).split(',').filter(Boolean));
      } catch (e) {
        delete overrides[key];
        this.controller.emit('balancer.config-rejected', { key, value, error: (e as Error).message });
      }
    }
    this.dynamicOverrides = overrides as Partial<AutoBalancerConfig>;
  }

  /** The goals of the next detect, by priority. */
  get goals(): readonly Goal[] {
    return this.customGoals ?? this.goalsFor(this.config);
  }

  /** Replaces the goal list (user goals); `autobalancer.controller.goals` is ignored from now on. */
  setGoals(goals: readonly Goal[]): void {
    const names = new Set<string>();
    for (const g of goals) {
      if (names.has(g.name)) throw new Error(`two goals are named ${g.name}`);
      names.add(g.name);
    }
    this.customGoals = [...goals];
  }

  /** Adds a goal after the current ones. */
  addGoal(goal: Goal): void {
    this.setGoals([...this.goals, goal]);
  }

  private goalsFor(config: AutoBalancerConfig): Goal[] {
    const names = config['autobalancer.controller.goals'];
    if (this.configuredGoals?.names !== names) {
      this.configuredGoals = {
        names,
        goals: createGoals(listValue(config, 'autobalancer.controller.goals')),
      };
    }
    return this.configuredGoals.goals;
  }

  // ---- lifecycle --------------------------------------------------------------------------------------------

  /** Called at every start of a controller: a fresh detector there (its state was in memory). */
  private start(controller: QuorumController): void {
    if (!this.quorum) {
      // A lone controller's restart is the balancer's restart: everything it knew is gone.
      this.#model = new ClusterModel();
      this.sequence = 0;
      this.pending = [];
      this.current = undefined;
    }
    this.#actors.set(
      controller,
      controller.spawn(
        createDetectorMachine({
          detectIntervalMs: () => this.config['autobalancer.controller.anomaly.detect.interval.ms'],
          executionIntervalMs: () => this.config['autobalancer.controller.execution.interval.ms'],
          now: () => controller.sim.now,
          detect: () => this.detect(controller),
          executeBatch: (index, done) => this.executeBatch(controller, index, done),
          executionEnded: (left) => this.executionEnded(left),
        }),
      ) as unknown as ActorRef,
    );
    controller.every(
      CLUSTER_STATS_INTERVAL_MS,
      () => this.publishClusterStats(controller),
      'balancer.cluster-stats',
    );
  }

  /**
   * A controller became active. In a quorum this is a failover (or the first election): the balancer's state
   * restarts there, as AutoMQ's LoadRetriever and detector on the new leader start from nothing; the metrics
   * reporters find the new active controller through NOT_CONTROLLER and refill the model.
   */
  private activate(controller: QuorumController): void {
    const moved = this.#host !== controller;
    this.#host = controller;
    if (!this.quorum) return;
    this.#model = new ClusterModel();
    this.pending = [];
    this.current = undefined;
    this.emit('failover', { controller: controller.id, moved });
  }

  /** The detector's state: waiting, detecting, executing or pausing (undefined while the controller is down). */
  get state(): string | undefined {
    const host = this.#host;
    return host.up ? String(this.#actors.get(host)?.getSnapshot().value) : undefined;
  }

  /** Calls `listener` with each finished detect (after its execution); returns the unsubscribe function. */
  onDetect(listener: (report: DetectReport) => void): () => void {
    this.listeners = [...this.listeners, listener];
    return () => {
      this.listeners = this.listeners.filter((l) => l !== listener);
    };
  }

  get lastDetect(): DetectReport | undefined {
    return this.history[this.history.length - 1];
  }

  /**
   * Every move sent for execution so far, in order, including the batches of the detect now executing (its
   * report joins the history only when its execution ends) and those of detects the bounded history has
   * already dropped (a long run at full speed makes thousands of detects).
   */
  executedMoves(): PartitionMove[] {
    return [...this.#executed];
  }

  // ---- metrics ----------------------------------------------------------------------------------------------

  private onMetrics(
    _from: NodeId,
    req: AutoBalancerMetricsRequest,
    reply: (response: unknown) => void,
  ): void {
    this.model.update(req);
    reply({ errorCode: 0 });
  }

  private publishClusterStats(controller: QuorumController): void {
    const cfg = this.config;
    if (!controller.isActive || !cfg['autobalancer.controller.enable']) return;
    controller.clusterStats = this.model.clusterStats(
      controller.sim.now,
      cfg['autobalancer.controller.metrics.delay.ms'],
      excludedBrokerIds(cfg),
    );
  }

  /** Latest loads per broker as the balancer sees them. */
  brokerLoads(): DetectReport['brokers'] {
    return this.model.brokerStatus(
      this.controller.sim.now,
      this.config['autobalancer.controller.metrics.delay.ms'],
    );
  }

  // ---- detect -----------------------------------------------------------------------------------------------

  private emit(kind: string, fields: Record<string, unknown>): void {
    this.controller.emit(`balancer.${kind}`, fields);
  }

  private detect(controller: QuorumController): number {
    // A standby's loop ticks without a trace (AutoMQ's detector returns at once when it is not the leader).
    if (this.quorum && !controller.isActive) return 0;
    const cfg = this.config;
    const now = controller.sim.now;
    const report: DetectReport = {
      sequence: ++this.sequence,
      time: now,
      ...(this.quorum ? { controller: controller.id } : {}),
      goals: [],
      brokers: [],
      excludedBrokers: [...excludedBrokerIds(cfg)].sort((a, b) => a - b),
      excludedTopics: [...excludedTopics(cfg)].sort(),
      decisions: [],
      moves: [],
      batches: [],
      executionTimedOut: false,
    };
    this.pending = [];
    const skip = !controller.isActive
      ? 'not the active controller'
      : !cfg['autobalancer.controller.enable']
        ? 'autobalancer.controller.enable is false'
        : undefined;
    if (skip) {
      report.skipped = skip;
      report.finishedAt = now;
      this.emit('detect', { sequence: report.sequence, skipped: skip });
      this.finish(report);
      return 0;
    }
    const goals = this.goals;
    report.goals = goals.map((g) => g.name);
    const delay = cfg['autobalancer.controller.metrics.delay.ms'];
    report.brokers = this.model.brokerStatus(now, delay);
    const snapshot = this.model.snapshot({
      now,
      metricsDelayMs: delay,
      excludedBrokers: excludedBrokerIds(cfg),
      excludedTopics: excludedTopics(cfg),
    });
    for (const b of snapshot.brokers) {
      const status = report.brokers.find((s) => s.brokerId === b.brokerId);
      if (status && b.outOfDate && !status.outOfDate) status.outOfDate = b.outOfDate;
    }
    this.emit('detect', {
      sequence: report.sequence,
      goals: report.goals,
      brokers: report.brokers,
      excludedBrokers: report.excludedBrokers,
      excludedTopics: report.excludedTopics,
    });
    const record = (d: BalancerDecision) => {
      report.decisions.push(d);
      if (this.traceDecisions) {
        const { kind, ...fields } = d;
        this.emit(kind, fields);
      }
    };
    const actions = optimize(snapshot, goals, { config: cfg, record });
    const moves = mergeMoves(actions.map(toMove));
    const topicPartitions = new Map<string, number>();
    for (let p = 0; p < snapshot.partitionCount; p++) {
      const t = snapshot.topic(p);
      topicPartitions.set(t, (topicPartitions.get(t) ?? 0) + 1);
    }
    const batches = groupMoves(moves, topicPartitions, {
      maxExecutionConcurrency: cfg['autobalancer.controller.execution.concurrency'],
    });
    report.moves = moves;
    this.emit('plan', {
      sequence: report.sequence,
      moves: moves.length,
      batches: batches.map((b) =>
        b.map((m) => `${m.topic}-${m.partition}:${m.srcBrokerId}->${m.destBrokerId}`),
      ),
    });
    this.pending = batches;
    this.current = report;
    if (batches.length === 0) {
      report.finishedAt = now;
      this.finish(report);
    }
    return batches.length;
  }

  // ---- execution --------------------------------------------------------------------------------------------

  private executeBatch(controller: QuorumController, index: number, done: () => void): void {
    const report = this.current;
    const moves = this.pending[index] ?? [];
    const image = controller.latestImage;
    const batch: BatchReport = { index, time: controller.sim.now, moves, skipped: [], errors: [] };
    report?.batches.push(batch);
    const targets: { topic: string; partition: number; replicas: number[] }[] = [];
    const sent: PartitionMove[] = [];
    for (const m of moves) {
      if (!isActiveBroker(image, m.destBrokerId)) {
        batch.skipped.push({ move: m, reason: `destination broker ${m.destBrokerId} is not active` });
        continue;
      }
      targets.push({ topic: m.topic, partition: m.partition, replicas: this.targetReplicas(image, m) });
      sent.push(m);
    }
    const later = () => controller.schedule(0, done, 'balancer.batch-done');
    this.emit('execute', {
      batch: index,
      moves: sent.map((m) => ({ ...m })),
      skipped: batch.skipped.map((s) => ({ ...s.move, reason: s.reason })),
    });
    if (targets.length === 0) return void later();
    const ok = controller.submit({ type: 'AlterPartitionReassignments', partitions: targets }, (r) => {
      const response = r as AlterPartitionReassignmentsResponse;
      batch.committedAt = controller.sim.now;
      response.partitions?.forEach((p, i) => {
        if (p.errorCode !== 0)
          batch.errors.push({ move: sent[i]!, error: p.errorMessage ?? String(p.errorCode) });
      });
      if (response.errorCode && response.errorCode !== 0) {
        for (const m of sent)
          batch.errors.push({ move: m, error: response.errorMessage ?? String(response.errorCode) });
      }
      this.emit('executed', {
        batch: index,
        errors: batch.errors.map((e) => ({ ...e.move, error: e.error })),
      });
      done();
    });
    if (ok) this.#executed.push(...sent);
    else {
      for (const m of sent) batch.errors.push({ move: m, error: 'not the active controller' });
      later();
    }
  }

  /** AutoMQ sends replicas = [dest]; with RF > 1 (kafka storage) the source's replica is replaced by dest. */
  private targetReplicas(image: MetadataImage, m: PartitionMove): number[] {
    if (this.controller.storageMode === 'shared') return [m.destBrokerId];
    const reg = image.topics[m.topic]?.partitions[m.partition];
    const others = (reg?.replicas ?? []).filter((r) => r !== m.srcBrokerId && r !== m.destBrokerId);
    return [m.destBrokerId, ...others];
  }

  private executionEnded(left: number): void {
    const report = this.current;
    this.current = undefined;
    this.pending = [];
    if (!report) return;
    report.executionTimedOut = left > 0;
    report.finishedAt = this.controller.sim.now;
    if (left > 0) {
      this.emit('execution-stopped', {
        sequence: report.sequence,
        batchesLeft: left,
        reason:
          'the 60 s execution limit passed or execution was aborted; the rest is recomputed at the next detect',
      });
    }
    this.finish(report);
  }

  private finish(report: DetectReport): void {
    this.history.push(report);
    if (this.history.length > this.historySize)
      this.history.splice(0, this.history.length - this.historySize);
    for (const l of this.listeners) l(report);
  }
}
