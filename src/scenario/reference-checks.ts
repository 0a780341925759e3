// The checks a JSON Schema cannot express, as the steps, conditions and metrics of the language ask for them:
// that the brokers, controllers, topics, clients and step labels a value names exist (with a did-you-mean), each
// problem located like a schema error. references.ts implements them for a scenario document; the HTTP API
// implements the ones its conditions use against a running cluster.
import type { ReassignmentJson } from '../format/index.ts';
import type { DocPath } from './source.ts';
import type { Condition, NodeRef, ScenarioSpec, StepSpec, TopicSpec } from './types.ts';

/** What a client declared under `clients` is. */
export type ClientKind = 'producer' | 'consumer' | 'perfProducer' | 'group' | 'ingest';

export interface ReferenceChecks {
  /** The document being checked (undefined for a condition sent to the HTTP API). */
  readonly spec: ScenarioSpec | undefined;
  /** Reports a problem at `path` (`key`: at the key of its last segment rather than its value). */
  report(path: DocPath, message: string, key?: boolean): void;
  checkTopic(path: DocPath, name: string | undefined): void;
  /** `key`: the id is a mapping's key (point at the key). */
  checkBroker(path: DocPath, id: number, key?: boolean): void;
  /** `name` must be a declared client of one of `kinds`; `what` names them in the message. */
  checkClient(path: DocPath, name: string, kinds: readonly ClientKind[], what: string): void;
  /**
   * `label` must be some step's; `before`: that step must come before step `before`; `mustBe` says what is
   * wrong with the step it names, if anything.
   */
  checkLabel(
    path: DocPath,
    label: string,
    before?: number,
    mustBe?: (s: StepSpec) => string | undefined,
  ): void;
  checkCondition(c: Condition, path: DocPath): void;
}

/** What a step's checks see besides the shared ones: its place in the timeline and what earlier steps did. */
export interface StepChecks extends ReferenceChecks {
  readonly spec: ScenarioSpec;
  /** The step's index in the timeline, and the path of its action's value. */
  readonly index: number;
  readonly path: DocPath;
  /** Where relative file references resolve from; undefined: files may not be read (a network scenario). */
  readonly baseDir: string | undefined;
  /** The cluster's broker ids, in order. */
  readonly brokerIds: readonly number[];
  checkController(path: DocPath, id: number): void;
  checkNode(path: DocPath, node: NodeRef): void;
  checkTopicSpec(t: TopicSpec, path: DocPath): void;
  /** True when a client of one of these kinds is declared. */
  declares(kinds: readonly ClientKind[]): boolean;
  /** A `start` step starts this client (so it is not reported as never started). */
  started(name: string): void;
  /** Index of the latest reassign step before this one (-1: none). */
  readonly lastReassign: number;
  /**
   * This reassign step's JSON, parsed as the tool would and kept for the run (undefined when it had problems,
   * already reported); the step becomes the latest reassign step.
   */
  readReassignment(value: NonNullable<StepSpec['reassign']>): ReassignmentJson | undefined;
  /** What a step acts on (for `brokerOf` / `controllerOf` labels), and the actions that act on each. */
  actsOn(step: StepSpec): 'broker' | 'controller' | undefined;
  actionsActingOn(kind: 'broker' | 'controller'): readonly string[];
}
