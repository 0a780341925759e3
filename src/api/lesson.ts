// A scenario served as a guided lesson (`kafkasim ui scenario`): the scenario's clients and its timeline, step by
// step. Each step's action (create a topic, reassign, crash a broker, start a producer...) is an ordinary request,
// POST /sim/lesson/step {index}, applied where the served simulation is when it arrives and recorded in the
// request log like any other change, so a replay (a rewind, a branch) runs the same step at the same point. The
// waits between steps (`after`, `at`, `run`, `waitUntil`) are the viewer's: the UI plays the simulation until a
// step is due (its time has come, or its condition holds, which GET /sim/snapshot's `lesson` says) and then asks
// for the step, pausing there if the teacher wants. The steps are the scenario runner's own (executeStep), with
// the scenario's own clients (ScenarioClients), so a lesson does what `kafkasim run` does, paced for watching.
import { parseDuration } from '../../models/sim/index.ts';
import type { Cluster } from '../cluster/index.ts';
import { ScenarioClients } from '../scenario/clients.ts';
import { evaluate, type ScenarioEval } from '../scenario/conditions/index.ts';
import type { LoadedScenario, StepRecord } from '../scenario/index.ts';
import { actionOf, describeStep, executeStep, StepFailure } from '../scenario/steps/index.ts';
import { conflict } from './errors.ts';

/** Lines of tool output a lesson keeps (the newest). */
const MAX_OUTPUT_LINES = 500;

export class LessonRun {
  readonly clients: ScenarioClients;
  /** The timeline's time 0 (virtual ms): when the setup was done. */
  readonly t0: number;
  next = 0;
  /** When the previous step ended (virtual ms): `after` counts from there. */
  private previousEnd: number;
  private readonly records: StepRecord[];
  private readonly labelled = new Map<string, StepRecord>();
  private lastReassign: number | undefined;
  readonly output: string[] = [];
  /** Called with each line the steps print (`serve --play` shows them in the terminal). */
  onPrint: ((line: string) => void) | undefined;

  constructor(
    private readonly cluster: Cluster,
    private readonly loaded: LoadedScenario,
  ) {
    this.clients = new ScenarioClients(cluster, loaded.spec);
    for (const name of this.clients.autoStartNames()) this.clients.start(name);
    this.t0 = cluster.sim.now;
    this.previousEnd = this.t0;
    this.records = loaded.spec.timeline.map((s, index) => ({
      index,
      label: s.label,
      action: actionOf(s),
      start: undefined,
      end: undefined,
      status: 'skipped' as const,
    }));
    for (const r of this.records) if (r.label !== undefined) this.labelled.set(r.label, r);
  }

  private get steps() {
    return this.loaded.spec.timeline;
  }

  private evalContext(): ScenarioEval {
    return {
      cluster: this.cluster,
      clients: this.clients,
      brokerIds: this.loaded.brokerIds,
      steps: this.labelled,
      invariantViolation: undefined,
      t0: this.t0,
    };
  }

  /** When a step's time comes (virtual ms), for `at`, `after` and `run`; null for a condition. */
  private dueOf(index: number): number | null {
    const step = this.steps[index];
    if (!step || step.waitUntil) return null;
    const start =
      step.at !== undefined
        ? this.t0 + parseDuration(step.at)
        : this.previousEnd + parseDuration(step.after ?? '0ms');
    return step.run !== undefined ? start + parseDuration(step.run) : start;
  }

  private print = (text: string): void => {
    const body = text.endsWith('\n') ? text.slice(0, -1) : text;
    const lines = body.split('\n');
    this.output.push(...lines);
    if (this.onPrint) for (const line of lines) this.onPrint(line);
    if (this.output.length > MAX_OUTPUT_LINES) this.output.splice(0, this.output.length - MAX_OUTPUT_LINES);
  };

  /** The next step: its index, the step count, its action and its note; undefined when all ran. */
  nextStep(): { index: number; of: number; action: string; note: string | undefined } | undefined {
    const step = this.steps[this.next];
    if (!step) return undefined;
    return { index: this.next, of: this.steps.length, action: actionOf(step), note: step.note };
  }

  /** When the next step is due (virtual ms); null when it waits for a condition; undefined when all ran. */
  dueAt(): number | null | undefined {
    if (this.next >= this.steps.length) return undefined;
    return this.dueOf(this.next);
  }

  private lastCheck = { at: Number.NEGATIVE_INFINITY, next: -1 };

  /**
   * Whether the next step may run now: its time has come, or its condition holds. A condition is evaluated at
   * most once per virtual millisecond (as the scenario runner polls a waitUntil), so the pacer may ask after
   * every event.
   */
  ready(): boolean {
    const due = this.dueAt();
    if (due === undefined) return false;
    const now = this.cluster.sim.now;
    if (due !== null) return now >= due;
    if (this.lastCheck.next === this.next && now - this.lastCheck.at < 1) return false;
    this.lastCheck = { at: now, next: this.next };
    try {
      return evaluate(this.steps[this.next]!.waitUntil!.condition, this.evalContext()).passed;
    } catch {
      return false;
    }
  }

  /** Refuses a step that is not the next one, saying which is. */
  check(index: number): void {
    if (index !== this.next)
      throw conflict(
        this.next >= this.steps.length
          ? `the lesson is over: all ${this.steps.length} steps ran`
          : `step ${index} is not next: the next step is ${this.next} (of ${this.steps.length})`,
      );
  }

  /** Runs step `index` now (it must be the next one). A step that fails says why in the output and is passed. */
  apply(index: number): { index: number; status: string; error?: string } {
    this.check(index);
    const step = this.steps[index]!;
    const record = this.records[index]!;
    const sim = this.cluster.sim;
    record.start = sim.now - this.t0;
    record.image = this.cluster.image;
    this.cluster.sim.trace.emit('lesson.step', undefined, {
      index,
      action: record.action,
      ...(step.note !== undefined ? { note: step.note } : {}),
    });
    if (!step.quiet && !step.waitUntil && step.run === undefined)
      this.print(
        describeStep({ spec: this.loaded.spec, index, step, reassignments: this.loaded.reassignments }),
      );
    let error: string | undefined;
    try {
      if (!step.waitUntil && step.run === undefined) {
        const broker = executeStep({
          cluster: this.cluster,
          clients: this.clients,
          spec: this.loaded.spec,
          index,
          step,
          steps: this.labelled,
          reassignments: this.loaded.reassignments,
          lastReassign: this.lastReassign,
          print: step.quiet ? () => {} : this.print,
          sql: (query) => this.print(`(Lake SQL, ask it in the Lake's SQL endpoint: ${query})`),
          actedOnController: (id) => {
            record.controller = id;
          },
          applied: (t) => {
            record.applied = t - this.t0;
          },
          // The viewer plays the time between steps: a lesson never applies `run` or `waitUntil` as a step.
          runFor: () => {
            throw new StepFailure('a lesson plays the time between steps itself');
          },
          runUntil: () => {
            throw new StepFailure('a lesson plays the time between steps itself');
          },
          evaluate: (c) => evaluate(c, this.evalContext()),
          timedOut: () => {
            record.status = 'timed-out';
          },
          timelineNow: () => sim.now - this.t0,
        });
        if (broker !== undefined) record.broker = broker;
        if (step.reassign) this.lastReassign = index;
      }
      record.status = 'ok';
    } catch (e) {
      if (!(e instanceof StepFailure)) throw e;
      record.status = 'failed';
      error = e.message;
      record.error = error;
      this.print(`step ${index + 1} failed: ${error}`);
    }
    record.end = sim.now - this.t0;
    this.previousEnd = sim.now;
    this.next++;
    return { index, status: record.status, ...(error !== undefined ? { error } : {}) };
  }

  /** The scenario's clients: whether each runs, and its counters (sent, acknowledged, consumed, lag...). */
  private clientsView() {
    const metrics = this.clients.metrics();
    return this.clients.names().map((name) => {
      const stats: Record<string, number> = {};
      for (const [k, v] of Object.entries(metrics))
        if (k.startsWith(`${name}.`)) stats[k.slice(name.length + 1)] = v;
      return { name, started: this.clients.isStarted(name), stats };
    });
  }

  /** The lesson as the UI shows it: the steps, the next one, whether it is due. A pure read. */
  view() {
    const next = this.steps[this.next];
    let holds: boolean | null = null;
    if (next?.waitUntil) {
      try {
        holds = evaluate(next.waitUntil.condition, this.evalContext()).passed;
      } catch {
        holds = false;
      }
    }
    return {
      scenario: this.loaded.spec.name,
      description: this.loaded.spec.description ?? '',
      t0_ms: this.t0,
      next: this.next,
      holds,
      steps: this.steps.map((s, index) => ({
        index,
        label: s.label ?? null,
        action: actionOf(s),
        note: s.note ?? null,
        wait:
          s.waitUntil && index === this.next ? evaluateText(s.waitUntil.condition, this.evalContext()) : null,
        due_ms: index === this.next ? this.dueOf(index) : null,
        status: this.records[index]!.status,
      })),
      clients: this.clientsView(),
      output: this.output.slice(-40),
    };
  }
}

function evaluateText(condition: Parameters<typeof evaluate>[0], ctx: ScenarioEval): string {
  try {
    return evaluate(condition, ctx).expected;
  } catch {
    return 'a condition';
  }
}
