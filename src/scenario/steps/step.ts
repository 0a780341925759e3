// What a step of the scenario language is: one action of the timeline, with its JSON Schema, its reference
// checks, the command line it stands for, what it does, and its documentation, in one definition per file of
// this folder (index.ts is the registry). Admin actions go through the cluster's admin client, so they take
// virtual time like the real tools; their output is the tools' own text.
import { ExitCode, KafkasimError } from '../../../models/sim/index.ts';
import type { Cluster } from '../../cluster/index.ts';
import type { RaftTestServerCluster } from '../../cluster/raft-test-server.ts';
import type { ReassignmentJson } from '../../format/index.ts';
import type { ScenarioClients } from '../clients.ts';
import type { Outcome } from '../conditions/index.ts';
import type { StepChecks } from '../reference-checks.ts';
import type { Schema } from '../schema-kit.ts';
import type { StepRecord } from '../step-record.ts';
import type { BrokerSelector, Condition, ControllerAction, ScenarioSpec, StepSpec } from '../types.ts';

/** The address tools are shown connecting to (the simulated brokers listen on kafkasim.host:port). */
export const BOOTSTRAP = 'localhost:9092';

/** A step failed in a way the scenario did not ask for (the run fails; the timeline stops). */
export class StepFailure extends KafkasimError {
  readonly code = 'STEP_FAILED';
  readonly exitCode = ExitCode.failed;
  override name = 'StepFailure';
}

/** What describing a step sees. */
export interface StepDescribe {
  readonly spec: ScenarioSpec;
  readonly index: number;
  readonly step: StepSpec;
  readonly reassignments: ReadonlyMap<number, ReassignmentJson>;
  /** While the run is on: a broker or controller selector as the id it names right now (undefined if none). */
  resolveBroker?(sel: BrokerSelector): number | undefined;
  resolveController?(action: ControllerAction): number | undefined;
  /** While the run is on: a condition's outcome now (a waitUntil shows its condition in words). */
  evaluate?(c: Condition): Outcome;
}

/** What doing a step sees. */
export interface StepExecute {
  /** The cluster (in a raftTestServer scenario, whose steps never read it, there is none). */
  readonly cluster: Cluster;
  /** The Raft test server quorum of a raftTestServer scenario. */
  readonly raftTestServer?: RaftTestServerCluster;
  readonly clients: ScenarioClients;
  readonly spec: ScenarioSpec;
  readonly index: number;
  readonly step: StepSpec;
  /** Every labelled step's record so far. */
  readonly steps: ReadonlyMap<string, StepRecord>;
  readonly reassignments: ReadonlyMap<number, ReassignmentJson>;
  /** Index of the latest reassign step so far. */
  readonly lastReassign: number | undefined;
  /** Prints tool output (nothing for a quiet step). */
  print(text: string): void;
  /** Prints the result of a Lake SQL query as of now (the runner defers it: DuckDB answers asynchronously). */
  sql(query: string): void;
  /** The step acted on this controller (for `controllerOf`), perhaps later (a delayed crash). */
  actedOnController(id: number): void;
  /** A tool step's request reached the controller at virtual time `t` (for `fromPoint: applied`). */
  applied(t: number): void;
  /** Runs the simulation for `ms` of virtual time (reporting progress). */
  runFor(ms: number): void;
  /** Runs until `c` holds (checked at most every `pollMs`), or throws SimTimeoutError after `timeout`. */
  runUntil(c: Condition, timeout: string, pollMs: number): void;
  /** A condition's outcome now. */
  evaluate(c: Condition): Outcome;
  /** The step gave up waiting (a waitUntil that timed out). */
  timedOut(): void;
  /** The timeline's time now (ms since time 0). */
  timelineNow(): number;
}

export interface StepDefinition<V> {
  /** The action value's JSON Schema (the registry adds `description`). */
  readonly schema: Schema;
  /** What it does: the schema's description and the language reference's text. */
  readonly description: string;
  /** How it is written, for the language reference. */
  readonly syntax: string;
  /** What it acts on, for the steps that name it by label (`brokerOf`, `controllerOf`). */
  readonly actsOn?: 'broker' | 'controller';
  /** The broker or controller selector of the value (for steps that act on one). */
  brokerSelector?(value: V): BrokerSelector;
  controllerAction?(value: V): ControllerAction;
  /** Reference checks the schema cannot express. */
  check?(value: V, at: StepChecks): void;
  /** The command line the step stands for (shown before its output), or a `# description`. */
  describe(value: V, at: StepDescribe): string;
  /** Does it; returns the broker it acted on, if any. Throws StepFailure when it cannot be done. */
  execute(value: V, at: StepExecute): number | undefined;
}

/**
 * An operator's tool starting up before its first request (kafkasim.tool.startup.ms, drawn from the seed): the
 * cluster and its clients run on meanwhile, so where the command lands in their timers varies as in life.
 */
export function toolStartup(at: StepExecute): void {
  const ms = at.cluster.startup.toolMs();
  if (ms > 0) at.cluster.runFor(ms);
}

/** Reports when the tool's request reached the controller. */
export function reportApplied(at: StepExecute): void {
  const t = at.cluster.admin.lastHandledAt;
  if (t !== undefined) at.applied(t);
}
