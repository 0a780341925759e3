// The scenario runner: builds the cluster a scenario describes, creates its topics, runs the timeline step by
// step in virtual time (printing the tool output steps ask for), then checks the expectations and collects
// metrics. The same seed and scenario give the same run, event for event (and the same traceHash: the run's
// fingerprint over every event and the data plane, models/sim/fingerprint.ts).
import type { LakeQueryResult } from '../../models/lake/index.ts';
import { InvariantViolation, type TraceListener } from '../../models/sim/index.ts';
import { Cluster } from '../cluster/index.ts';
import { ScenarioClients } from './clients.ts';
import {
  armCondition,
  conditionDefinition,
  conditionKind,
  evaluate,
  evaluator,
  measure,
  type ScenarioEval,
  TraceWatch,
} from './conditions/index.ts';
import { ErrorWindows } from './error-windows.ts';
import { ScenarioError } from './errors.ts';
import { type LoadedScenario, loadScenarioFile, loadScenarioObject } from './load.ts';
import { RaftTestServerRun } from './raft-test-server-run.ts';
import {
  expectationResult,
  scenarioResult,
  stepRecords,
  stepStartTime,
  stepTitle,
  timelineFailure,
} from './run-parts.ts';
import { clusterOptionsOf, setUpScenarioCluster } from './setup.ts';
import { scenarioFileOf, unknownScenarioNameHint } from './shipped.ts';
import { sqlOutput } from './sql-output.ts';
import type { StepRecord } from './step-record.ts';
import {
  describeStep,
  executeStep,
  type StepDescribe,
  type StepExecute,
  StepFailure,
} from './steps/index.ts';
import { controllerAction, resolveBroker, resolveController } from './steps/selectors.ts';
import type { Condition, ExpectationSpec, ScenarioSpec } from './types.ts';

export interface ExpectationResult {
  name: string;
  passed: boolean;
  /** What had to hold, in words. */
  expected: string;
  /** What was measured (a number, a string, or an object of numbers). */
  actual: unknown;
}

export interface ScenarioResult {
  scenario: string;
  seed: number | string;
  passed: boolean;
  expectations: ExpectationResult[];
  metrics: Record<string, number | null>;
  virtualMs: number;
  wallMs: number;
  events: number;
  traceHash: string;
  /** Every tool-output line the run printed, in order (no trailing newlines). */
  output: string[];
  /** What each step did and when. */
  steps: StepRecord[];
  /** Why the timeline stopped early (a failed step, a timeout, an invariant violation), if it did. */
  error?: string;
}

export interface StepEvent {
  index: number;
  label: string | undefined;
  action: string;
  /** When the step starts, in ms since the timeline started. */
  time: number;
  /** The command it stands for (`$ kafka-topics.sh ...`) or a `# description`. */
  command: string;
  note: string | undefined;
  quiet: boolean;
}

export interface Progress {
  virtualMs: number;
  events: number;
  step: number;
  steps: number;
}

export interface RunOptions {
  /** Overrides the scenario's seed. */
  seed?: number | string;
  /** `path=value` overrides (as `--set`). */
  set?: readonly string[];
  /** Receives each tool-output line as it is printed. */
  out?: (line: string) => void;
  /** Receives every trace event (e.g. `jsonlSink(write)` for --trace). */
  trace?: TraceListener;
  /** Called when a step starts. */
  onStep?: (event: StepEvent) => void;
  /** Called now and then while the simulation runs. */
  onProgress?: (progress: Progress) => void;
  /** Where relative reassign `file:` references resolve from (objects only; files use their folder). */
  baseDir?: string;
  /**
   * Called with the cluster once it is built, before it starts: a test can add invariants, listeners or its
   * own workload to a scenario's world.
   */
  onCluster?: (cluster: Cluster) => void;
}

/** How much virtual time runs between progress reports while a `run`/`at` wait is in progress. */
const PROGRESS_SLICE_MS = 1000;
const PROGRESS_EVERY_EVENTS = 50_000;

function load(input: string | object | LoadedScenario, options: RunOptions): LoadedScenario {
  // A misspelt shipped name gets the CLI's suggestion, not only "no such file".
  const hint = typeof input === 'string' ? unknownScenarioNameHint(input) : undefined;
  if (hint !== undefined)
    throw new ScenarioError([
      {
        source: input as string,
        path: '',
        message: `no such file, nor a shipped scenario of that name${hint}`,
      },
    ]);
  return typeof input === 'string'
    ? loadScenarioFile(scenarioFileOf(input), options.set ? { set: options.set } : {})
    : isLoaded(input)
      ? input
      : loadScenarioObject(input, {
          ...(options.set ? { set: options.set } : {}),
          ...(options.baseDir ? { baseDir: options.baseDir } : {}),
        });
}

/** True when a scenario asks the Lake SQL questions (`print: {sql}` or a `sql` expectation). */
export function needsSql(spec: ScenarioSpec): boolean {
  const isSqlPrint = (p: ScenarioSpec['timeline'][number]['print']) => typeof p === 'object' && 'sql' in p;
  return (
    spec.timeline.some((s) => isSqlPrint(s.print)) ||
    (spec.expectations ?? []).some((e) => e.sql !== undefined)
  );
}

/**
 * Runs a scenario: a file path (relative to the working directory), a shipped scenario's id or name (as
 * `kafkasim run` takes them), a scenario object (validated like a file), or an already loaded scenario.
 * Throws ScenarioError when the input is invalid; otherwise returns the result (passed or not). A scenario
 * that asks the Lake SQL questions needs runScenarioAsync (DuckDB answers asynchronously): this throws.
 */
export function runScenario(
  input: string | object | LoadedScenario,
  options: RunOptions = {},
): ScenarioResult {
  const loaded = load(input, options);
  if (needsSql(loaded.spec))
    throw new Error(
      `scenario '${loaded.spec.name}' queries the Lake with SQL (print: {sql} or a sql expectation), which DuckDB answers asynchronously: run it with runScenarioAsync (as \`kafkasim run\` does)`,
    );
  if (loaded.spec.raftTestServer) return new RaftTestServerRun(loaded, options).execute();
  return new Run(loaded, options).execute();
}

/**
 * A Lake SQL query asked during the synchronous run. Lake.query() takes the writes logged up to the moment it
 * is called, so the answer is the Lake as of that virtual time however late DuckDB delivers it.
 */
interface SqlSlot {
  query: string;
  /** For a print: how many output lines came before it (its lines are spliced in there). */
  outputIndex: number;
  /** For an expectation: its index in the result's expectations and the rows it wants. */
  expectation?: { index: number; equals: (string | null)[][] };
  /** Never rejects (a rejection would go unhandled while the synchronous run still holds the thread). */
  answer: Promise<{ ok: LakeQueryResult } | { err: Error }>;
}

/**
 * Runs a scenario like runScenario, and also answers its Lake SQL: the run itself is synchronous and records
 * each query with the Lake's position at its virtual time; afterwards DuckDB answers them in order, their
 * output is spliced into the run's output where it was printed (tool lines and step events after the first
 * query are held back so that `out` and `onStep` still see everything in order), and sql expectations are
 * decided. Same result shape as runScenario; the Lake's DuckDB is closed at the end.
 */
export async function runScenarioAsync(
  input: string | object | LoadedScenario,
  options: RunOptions = {},
): Promise<ScenarioResult> {
  const wallStart = performance.now();
  const loaded = load(input, options);
  if (loaded.spec.raftTestServer) return new RaftTestServerRun(loaded, options).execute();
  const held: (() => Promise<void> | void)[] = [];
  let holding = false;
  const { out, onStep } = options;
  const run = new Run(
    loaded,
    {
      ...options,
      ...(out ? { out: (line: string) => (holding ? held.push(() => out(line)) : out(line)) } : {}),
      ...(onStep ? { onStep: (e: StepEvent) => (holding ? held.push(() => onStep(e)) : onStep(e)) } : {}),
    },
    true,
  );
  const answered = new Map<SqlSlot, string[]>();
  run.onSqlPrint = (slot) => {
    holding = true;
    held.push(async () => {
      const lines = sqlOutput(await slot.answer);
      answered.set(slot, lines);
      for (const l of lines) out?.(l);
    });
  };
  let result: ScenarioResult;
  try {
    result = run.execute();
    for (const f of held) await f();
    for (const slot of run.sqlSlots) {
      if (!slot.expectation) continue;
      const a = await slot.answer;
      const e = result.expectations[slot.expectation.index]!;
      const want = slot.expectation.equals;
      if ('err' in a) Object.assign(e, { passed: false, actual: `error: ${a.err.message}` });
      else {
        const rows = a.ok.rows.map((r) => [...r]);
        Object.assign(e, { passed: JSON.stringify(rows) === JSON.stringify(want), actual: rows });
      }
    }
  } finally {
    await run.cluster?.lake.close();
  }
  const prints = run.sqlSlots.filter((s) => !s.expectation).reverse();
  for (const slot of prints) result.output.splice(slot.outputIndex, 0, ...(answered.get(slot) ?? []));
  result.passed = result.expectations.every((e) => e.passed);
  // The wall time includes DuckDB's answers (loading it, applying the writes, the queries).
  result.wallMs = performance.now() - wallStart;
  return result;
}

function isLoaded(x: object): x is LoadedScenario {
  return 'spec' in x && 'reassignments' in x && (x as LoadedScenario).reassignments instanceof Map;
}

/** One line that explains a Raft invariant violation a scenario's own settings invite. */
function invariantHint(e: InvariantViolation, cluster: Cluster): string {
  const raft = cluster.controller.raft;
  if (!raft || raft.config['kafkasim.raft.flush.enable']) return '';
  if (!['MonotonicHighWatermark', 'MajorityReachedHighWatermark', 'ReplicatedCounter'].includes(e.invariant))
    return '';
  return '. Hint: kafkasim.raft.flush.enable is false, so the Raft leader counted records it had not flushed toward the high watermark and followers did not flush; the crash lost committed records (KAFKA-10533)';
}

class Run {
  /** Lake SQL asked during the run, in the order asked (answered by runScenarioAsync). */
  readonly sqlSlots: SqlSlot[] = [];
  onSqlPrint: ((slot: SqlSlot) => void) | undefined;
  private readonly spec: ScenarioSpec;
  private readonly seed: number | string;
  private readonly output: string[] = [];
  private readonly records: StepRecord[] = [];
  private readonly labelled = new Map<string, StepRecord>();
  cluster!: Cluster;
  private clients!: ScenarioClients;
  private invariantViolation: string | undefined;
  private errorWindows: ErrorWindows | undefined;
  /** Trace events the expectations watch (`traced`), from the timeline's start. */
  private runTraces: TraceWatch | undefined;
  private error: string | undefined;
  private lastProgressEvents = 0;
  private currentStep = 0;
  /** Virtual time when the setup was done: the timeline's time 0. */
  private t0 = 0;

  constructor(
    private readonly loaded: LoadedScenario,
    private readonly options: RunOptions,
    private readonly sqlAllowed = false,
  ) {
    this.spec = loaded.spec;
    this.seed = options.seed ?? loaded.spec.seed ?? 1;
  }

  /** Timeline time of a virtual time (rounded to a nanosecond, so that `at: 1s` reads 1000, not 999.9999999999998). */
  private rel(time: number): number {
    return Math.round((time - this.t0) * 1e6) / 1e6;
  }

  private print = (text: string): void => {
    const body = text.endsWith('\n') ? text.slice(0, -1) : text;
    for (const line of body.split('\n')) {
      this.output.push(line);
      this.options.out?.(line);
    }
  };

  execute(): ScenarioResult {
    const wallStart = performance.now();
    this.cluster = new Cluster({ ...clusterOptionsOf(this.spec, this.seed), out: this.print });
    if (this.options.trace) this.cluster.sim.trace.subscribe(this.options.trace);
    this.options.onCluster?.(this.cluster);
    this.clients = new ScenarioClients(this.cluster, this.spec);
    const windowed = Object.values(this.spec.metrics ?? {}).flatMap((m) =>
      m.errorWindow ? [m.errorWindow.producer] : [],
    );
    if (windowed.length > 0) {
      const clients = this.clients;
      this.errorWindows = new ErrorWindows(
        this.cluster.sim,
        [...new Set(windowed)],
        (p) => clients.errorCount(p),
        (p) => clients.producerOf(p),
      );
    }
    this.records.push(...stepRecords(this.spec));
    for (const r of this.records) if (r.label !== undefined) this.labelled.set(r.label, r);

    this.guard('setup', () => this.setup());
    if (this.error === undefined) this.timeline();
    this.clients.settle();

    const ctx = this.evalContext();
    const expectations: ExpectationResult[] = (this.spec.expectations ?? []).map((e, index) =>
      expectationResult(e.name, () => (e.sql ? this.sqlExpectation(e, index) : evaluate(e, ctx))),
    );
    if (this.error !== undefined) expectations.push(timelineFailure(this.error));
    return scenarioResult({
      spec: this.spec,
      seed: this.seed,
      sim: this.cluster.sim,
      wallStart,
      expectations,
      metrics: this.metrics(ctx),
      output: this.output,
      steps: this.records,
      error: this.error,
    });
  }

  private askLake(query: string): SqlSlot['answer'] {
    if (!this.sqlAllowed) throw new StepFailure('Lake SQL needs runScenarioAsync');
    return this.cluster.lake.query(query).then(
      (ok) => ({ ok }),
      (err: unknown) => ({ err: err instanceof Error ? err : new Error(String(err)) }),
    );
  }

  /** Asks the Lake now (the final state); runScenarioAsync decides it once DuckDB has answered. */
  private sqlExpectation(e: ExpectationSpec, index: number): ExpectationResult {
    const sql = e.sql!;
    const equals = sql.equals.map((r) => r.map((v) => (v === null ? null : String(v))));
    this.sqlSlots.push({
      query: sql.query,
      outputIndex: -1,
      expectation: { index, equals },
      answer: this.askLake(sql.query),
    });
    return {
      name: e.name,
      passed: false,
      expected: `rows of \`${sql.query}\` = ${JSON.stringify(equals)}`,
      actual: 'not answered yet',
    };
  }

  private sqlPrint = (query: string): void => {
    const slot: SqlSlot = { query, outputIndex: this.output.length, answer: this.askLake(query) };
    this.sqlSlots.push(slot);
    this.onSqlPrint?.(slot);
  };

  private evalContext(traces = this.runTraces): ScenarioEval {
    return {
      cluster: this.cluster,
      clients: this.clients,
      brokerIds: this.loaded.brokerIds,
      steps: this.labelled,
      invariantViolation: this.invariantViolation,
      ...(this.errorWindows ? { errorWindows: this.errorWindows } : {}),
      ...(traces ? { traces } : {}),
      t0: this.t0,
      output: this.output,
    };
  }

  private metrics(ctx: ScenarioEval): Record<string, number | null> {
    const out: Record<string, number | null> = { ...this.clients.metrics() };
    out['network.messagesDropped'] = this.cluster.sim.network.stats.dropped;
    for (const [name, m] of Object.entries(this.spec.metrics ?? {})) {
      try {
        out[name] = measure(m, ctx);
      } catch {
        out[name] = null;
      }
    }
    return out;
  }

  /** Runs `fn`; a simulation failure stops the run and is recorded (an invariant violation by name). */
  private guard(where: string, fn: () => void): boolean {
    try {
      fn();
      return true;
    } catch (e) {
      // Step failures, timeouts, invariant violations and model errors all stop the timeline; the messages
      // name the seed and virtual time where the kernel raised them.
      const hint = e instanceof InvariantViolation ? invariantHint(e, this.cluster) : '';
      if (e instanceof InvariantViolation) this.invariantViolation = `${e.message}${hint}`;
      this.error = `${where}: ${e instanceof Error ? e.message : String(e)}${hint}`;
      return false;
    }
  }

  private setup(): void {
    const { cluster, spec } = this;
    setUpScenarioCluster(cluster, spec);
    for (const name of this.clients.autoStartNames()) this.clients.start(name);
    this.t0 = cluster.sim.now;
    // What the expectations watch (traced) counts from the timeline's start.
    this.runTraces = new TraceWatch(cluster.sim);
    const ctx = this.evalContext();
    for (const e of spec.expectations ?? []) if (e.sql === undefined) armCondition(e, ctx);
  }

  private progress(): void {
    if (!this.options.onProgress) return;
    const sim = this.cluster.sim;
    this.lastProgressEvents = sim.eventCount;
    this.options.onProgress({
      virtualMs: sim.now,
      events: sim.eventCount,
      step: this.currentStep,
      steps: this.spec.timeline.length,
    });
  }

  /** Runs the simulation to `target`, in slices so that progress can be shown (slicing changes nothing). */
  private runTo(target: number): void {
    const sim = this.cluster.sim;
    while (sim.now < target) {
      sim.runFor(Math.min(PROGRESS_SLICE_MS, target - sim.now));
      this.progress();
    }
  }

  private timeline(): void {
    let lastReassign: number | undefined;
    const steps = this.spec.timeline;
    for (let i = 0; i < steps.length; i++) {
      const step = steps[i]!;
      const record = this.records[i]!;
      this.currentStep = i;
      const ok = this.guard(stepTitle(i, step, record.action), () => {
        const sim = this.cluster.sim;
        this.runTo(stepStartTime(step, this.t0, sim.now));
        record.start = this.rel(sim.now);
        record.image = this.cluster.image;
        this.cluster.sim.trace.emit('scenario.step', undefined, {
          index: i,
          action: record.action,
          ...(step.label !== undefined ? { label: step.label } : {}),
        });
        const resolving = { cluster: this.cluster, steps: this.labelled };
        const orUndefined = <T>(f: () => T): T | undefined => {
          try {
            return f();
          } catch {
            return undefined;
          }
        };
        const describing: StepDescribe = {
          spec: this.spec,
          index: i,
          step,
          reassignments: this.loaded.reassignments,
          resolveBroker: (sel) => orUndefined(() => resolveBroker(sel, resolving)),
          resolveController: (a) => orUndefined(() => resolveController(controllerAction(a).sel, resolving)),
          evaluate: (c) => evaluate(c, this.evalContext()),
        };
        this.options.onStep?.({
          index: i,
          label: step.label,
          action: record.action,
          time: this.rel(sim.now),
          command: describeStep(describing),
          note: step.note,
          quiet: step.quiet ?? false,
        });
        // The condition a waitUntil watches counts trace events from the wait's start.
        let waitTraces: TraceWatch | undefined;
        const ctx: StepExecute = {
          cluster: this.cluster,
          clients: this.clients,
          spec: this.spec,
          index: i,
          step,
          steps: this.labelled,
          reassignments: this.loaded.reassignments,
          lastReassign,
          print: step.quiet ? () => {} : this.print,
          sql: step.quiet ? () => {} : this.sqlPrint,
          actedOnController: (id) => {
            record.controller = id;
          },
          applied: (t) => {
            record.applied = this.rel(t);
          },
          runFor: (ms) => this.runTo(sim.now + ms),
          runUntil: (c, timeout, pollMs) => {
            waitTraces = new TraceWatch(sim);
            this.waitUntil(c, timeout, pollMs, i, waitTraces);
          },
          evaluate: (c) => evaluate(c, this.evalContext(waitTraces)),
          timedOut: () => {
            record.status = 'timed-out';
          },
          timelineNow: () => this.rel(sim.now),
        };
        record.status = 'failed';
        try {
          const broker = executeStep(ctx);
          if (broker !== undefined) record.broker = broker;
        } finally {
          waitTraces?.dispose();
        }
        if (record.status === 'failed') record.status = 'ok';
        record.end = this.rel(sim.now);
        if (step.reassign) lastReassign = i;
      });
      if (!ok) {
        record.status = record.status === 'timed-out' ? 'timed-out' : 'failed';
        record.error = this.error;
        record.end ??= this.rel(this.cluster.sim.now);
        return;
      }
    }
  }

  /** Runs until `c` holds, checking it at most every `poll` ms of virtual time (it is checked after events). */
  private waitUntil(c: Condition, timeout: string, poll: number, index: number, traces: TraceWatch): void {
    const sim = this.cluster.sim;
    const evalCtx = this.evalContext(traces);
    armCondition(c, evalCtx);
    let lastCheck = Number.NEGATIVE_INFINITY;
    // A condition that reads only the metadata image is evaluated again only when the image object changed (it is
    // copy on write): an isr or leaderless wait over 10,000 partitions would otherwise scan them after every event.
    const imageOnly = conditionDefinition(conditionKind(c)).reads === 'image';
    let seenImage: unknown;
    const outcome = evaluator(c, evalCtx);
    const holds = () => {
      if (sim.eventCount - this.lastProgressEvents >= PROGRESS_EVERY_EVENTS) this.progress();
      if (sim.now - lastCheck < poll) return false;
      lastCheck = sim.now;
      if (imageOnly) {
        const image = this.cluster.image;
        if (image === seenImage) return false;
        seenImage = image;
      }
      return outcome().passed;
    };
    sim.runUntil(holds, { timeout, description: `waitUntil in step ${index}` });
  }
}
