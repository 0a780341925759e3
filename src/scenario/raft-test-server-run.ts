// Runs a raftTestServer scenario: instead of a cluster, a quorum of Kafka's Raft test servers from the properties
// files the scenario gives (src/cluster/raft-test-server.ts), started until one leads; then the timeline (the
// VerifiableProducer and kafka-producer-perf-test steps, run) in virtual time, printing the tools' lines; then the
// expectations (output, invariants) and metrics. Same result shape, seed rules and fingerprint as a cluster run.
import { InvariantViolation } from '../../models/sim/index.ts';
import type { Cluster } from '../cluster/index.ts';
import { RaftTestServerCluster } from '../cluster/raft-test-server.ts';
import type { ScenarioClients } from './clients.ts';
import { evaluate, measure, type ScenarioEval } from './conditions/index.ts';
import type { LoadedScenario } from './load.ts';
import { raftQuorumConfigOf } from './raft-test-server-checks.ts';
import {
  expectationResult,
  latencyOf,
  scenarioResult,
  stepRecords,
  stepStartTime,
  stepTitle,
  timelineFailure,
} from './run-parts.ts';
import type { ExpectationResult, RunOptions, ScenarioResult } from './runner.ts';
import { startTimeOf } from './start-time.ts';
import type { StepRecord } from './step-record.ts';
import { describeStep, executeStep, type StepExecute } from './steps/index.ts';

/** How much virtual time runs between progress reports. */
const PROGRESS_SLICE_MS = 1000;

export class RaftTestServerRun {
  private readonly output: string[] = [];
  private readonly records: StepRecord[];
  private readonly labelled = new Map<string, StepRecord>();
  private readonly seed: number | string;
  private error: string | undefined;
  private invariantViolation: string | undefined;
  private t0 = 0;
  private server!: RaftTestServerCluster;
  /** A quiet step is running: the tools' lines are not printed. */
  private quiet = false;

  constructor(
    private readonly loaded: LoadedScenario,
    private readonly options: RunOptions,
  ) {
    this.seed = options.seed ?? loaded.spec.seed ?? 1;
    this.records = stepRecords(loaded.spec);
    for (const r of this.records) if (r.label !== undefined) this.labelled.set(r.label, r);
  }

  private print = (text: string): void => {
    for (const line of (text.endsWith('\n') ? text.slice(0, -1) : text).split('\n')) {
      this.output.push(line);
      this.options.out?.(line);
    }
  };

  private rel(time: number): number {
    return Math.round((time - this.t0) * 1e6) / 1e6;
  }

  private guard(where: string, fn: () => void): boolean {
    try {
      fn();
      return true;
    } catch (e) {
      if (e instanceof InvariantViolation) this.invariantViolation = e.message;
      this.error = `${where}: ${e instanceof Error ? e.message : String(e)}`;
      return false;
    }
  }

  /** What the output and invariants conditions read (there is no cluster and no client here). */
  private evalContext(): ScenarioEval {
    return {
      cluster: undefined as unknown as Cluster,
      clients: undefined as unknown as ScenarioClients,
      brokerIds: [],
      steps: this.labelled,
      invariantViolation: this.invariantViolation,
      t0: this.t0,
      output: this.output,
    };
  }

  private runTo(target: number): void {
    const sim = this.server.sim;
    while (sim.now < target) {
      sim.runFor(Math.min(PROGRESS_SLICE_MS, target - sim.now));
      this.options.onProgress?.({
        virtualMs: sim.now,
        events: sim.eventCount,
        step: 0,
        steps: this.records.length,
      });
    }
  }

  execute(): ScenarioResult {
    const wallStart = performance.now();
    const { spec } = this.loaded;
    const rts = spec.raftTestServer!;
    const latency = latencyOf(rts.latency);
    const startTime = spec.startTime === undefined ? undefined : startTimeOf(spec.startTime);
    this.server = new RaftTestServerCluster({
      seed: this.seed,
      properties: Object.entries(rts.properties).map(([file, text]) => ({ file, text })),
      quorumConfig: raftQuorumConfigOf(rts.configs),
      ...(latency ? { latency } : {}),
      ...(startTime !== undefined ? { startTime } : {}),
      out: (line) => {
        if (!this.quiet) this.print(line);
      },
    });
    const sim = this.server.sim;
    if (this.options.trace) sim.trace.subscribe(this.options.trace);
    if (this.guard('setup', () => this.server.start())) this.timeline();

    const ctx = this.evalContext();
    const expectations: ExpectationResult[] = (spec.expectations ?? []).map((e) =>
      expectationResult(e.name, () => evaluate(e, ctx)),
    );
    if (this.error !== undefined) expectations.push(timelineFailure(this.error));
    const metrics: Record<string, number | null> = {
      'network.messagesDropped': sim.network.stats.dropped,
    };
    for (const [name, m] of Object.entries(spec.metrics ?? {})) {
      try {
        metrics[name] = measure(m, ctx);
      } catch {
        metrics[name] = null;
      }
    }
    return scenarioResult({
      spec,
      seed: this.seed,
      sim,
      wallStart,
      expectations,
      metrics,
      output: this.output,
      steps: this.records,
      error: this.error,
    });
  }

  private timeline(): void {
    const { spec } = this.loaded;
    const sim = this.server.sim;
    this.t0 = sim.now;
    const none = () => {};
    for (let i = 0; i < spec.timeline.length; i++) {
      const step = spec.timeline[i]!;
      const record = this.records[i]!;
      const ok = this.guard(stepTitle(i, step, record.action), () => {
        this.runTo(stepStartTime(step, this.t0, sim.now));
        record.start = this.rel(sim.now);
        sim.trace.emit('scenario.step', undefined, {
          index: i,
          action: record.action,
          ...(step.label !== undefined ? { label: step.label } : {}),
        });
        this.options.onStep?.({
          index: i,
          label: step.label,
          action: record.action,
          time: this.rel(sim.now),
          command: describeStep({ spec, index: i, step, reassignments: this.loaded.reassignments }),
          note: step.note,
          quiet: step.quiet ?? false,
        });
        const at: StepExecute = {
          // The steps a raftTestServer scenario may use (raft-test-server-checks.ts) read neither.
          cluster: undefined as unknown as Cluster,
          clients: undefined as unknown as ScenarioClients,
          raftTestServer: this.server,
          spec,
          index: i,
          step,
          steps: this.labelled,
          reassignments: this.loaded.reassignments,
          lastReassign: undefined,
          print: step.quiet ? none : this.print,
          sql: none,
          actedOnController: none,
          applied: none,
          runFor: (ms) => this.runTo(sim.now + ms),
          runUntil: () => {
            throw new Error('waitUntil needs a cluster');
          },
          evaluate: (c) => evaluate(c, this.evalContext()),
          timedOut: () => {
            record.status = 'timed-out';
          },
          timelineNow: () => this.rel(sim.now),
        };
        record.status = 'failed';
        this.quiet = step.quiet ?? false;
        try {
          executeStep(at);
        } finally {
          this.quiet = false;
        }
        record.status = 'ok';
        record.end = this.rel(sim.now);
      });
      if (!ok) {
        record.error = this.error;
        record.end ??= this.rel(sim.now);
        return;
      }
    }
  }
}
