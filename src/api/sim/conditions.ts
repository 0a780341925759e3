// What `POST /sim/advance {until: ...}` can wait for: the scenario language's conditions (src/scenario/conditions:
// one registry, one evaluation) that a served cluster can answer, spelled as in a scenario (`{"ledBy": {"topic":
// "t", "broker": 2}}`), plus the API's original snake_case names, each an alias of one of them. Every key given
// must hold (AND). Conditions that read only the metadata image are cached per image (images are immutable), so
// checking after every event stays cheap.
import type { MetadataImage } from '../../../models/metadata/index.ts';
import {
  armCondition,
  type Condition,
  conditionDefinition,
  evaluate,
  type ReferenceChecks,
  SERVER_CONDITION_KINDS,
  type ServerEval,
  scenarioSchema,
  TraceWatch,
} from '../../scenario/index.ts';
import { badRequest } from '../errors.ts';
import type { World } from '../world.ts';

type Schema = Record<string, unknown>;

/** The API's first names for conditions, each the scenario condition it stands for. */
const ALIASES = {
  /** No partition has a reassignment in progress. */
  reassignments_done: {
    schema: { type: 'boolean', const: true },
    condition: (): Condition => ({ reassignments: { count: 0 } }),
  },
  /** This workload has finished (its summary is printed). */
  workload_done: {
    schema: { type: 'string', minLength: 1, maxLength: 64 },
    condition: (name: string): Condition => ({ workloadDone: name }),
  },
  /** Every partition of `topic` is led by `broker` (e.g. after moving them all there). */
  partitions_led_by: {
    schema: {
      type: 'object',
      additionalProperties: false,
      required: ['topic', 'broker'],
      properties: { topic: { type: 'string', maxLength: 1024 }, broker: { type: 'integer' } },
    },
    condition: (v: { topic: string; broker: number }): Condition => ({ ledBy: v }),
  },
  /** Every partition of this topic has a leader. */
  topic_has_leaders: {
    schema: { type: 'string', maxLength: 1024 },
    condition: (topic: string): Condition => ({ leaderless: { topic, count: 0 } }),
  },
  /** At most this many partitions have an ISR smaller than their replica set. */
  under_replicated_at_most: {
    schema: { type: 'integer', minimum: 0 },
    condition: (n: number): Condition => ({ underReplicated: { count: { lte: n } } }),
  },
  /** Every registered broker is unfenced. */
  brokers_unfenced: {
    schema: { type: 'boolean', const: true },
    condition: (): Condition => ({ fencedBrokers: { count: 0 } }),
  },
  /** A trace event whose kind starts with this happens (after the advance began). */
  trace_kind: {
    schema: { type: 'string', minLength: 1, maxLength: 200 },
    condition: (kind: string): Condition => ({ traced: { kind } }),
  },
} as const;

type AliasName = keyof typeof ALIASES;

/** The `until` body: any of the aliases and of the served cluster's conditions (see SERVER_CONDITION_KINDS). */
export type UntilSpec = { [K in AliasName]?: Parameters<(typeof ALIASES)[K]['condition']>[0] } & Condition;

/** Sub-condition lists (all, any, not) are the scenario language's; an advance names conditions side by side. */
const KINDS = SERVER_CONDITION_KINDS.filter((k) => !conditionDefinition(k).children);

/** A scenario condition's schema made self-contained (its `#/definitions/...` references inlined). */
function inline(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(inline);
  if (!schema || typeof schema !== 'object') return schema;
  const { $ref, ...rest } = schema as Schema;
  const out: Schema = {};
  if (typeof $ref === 'string') {
    const definitions = (scenarioSchema as { definitions: Record<string, unknown> }).definitions;
    Object.assign(out, inline(definitions[$ref.replace('#/definitions/', '')]));
  }
  for (const [k, v] of Object.entries(rest)) out[k] = inline(v);
  return out;
}

export const untilSchema = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: {
    ...Object.fromEntries(Object.entries(ALIASES).map(([name, a]) => [name, a.schema])),
    ...Object.fromEntries(
      KINDS.map((k) => [
        k,
        {
          ...(inline(conditionDefinition(k).schema) as Schema),
          description: conditionDefinition(k).description,
        },
      ]),
    ),
  },
} as const;

export interface UntilCheck {
  holds: () => boolean;
  dispose: () => void;
}

/** The reference checks a served cluster can make: what the world has now (a topic, a workload). */
function serverChecks(world: World): ReferenceChecks {
  const refuse = (message: string): never => {
    throw badRequest(`until: ${message}`);
  };
  return {
    spec: undefined,
    report: (_path, message) => refuse(message),
    checkTopic: (_path, name) => {
      if (name !== undefined && !Object.hasOwn(world.cluster.image.topics, name))
        refuse(`no topic '${name}'`);
    },
    // A broker that does not exist simply never leads: the wait times out (met: false).
    checkBroker: () => {},
    // The only clients a served cluster names are its workloads (404 when there is none of that name).
    checkClient: (_path, name) => void world.workloads.get(name),
    checkLabel: (_path, label) => refuse(`a served cluster has no steps (label '${label}')`),
    checkCondition: () => {},
  };
}

/** The conditions an `until` names, in the order given (aliases as the conditions they stand for). */
function conditionsOf(until: UntilSpec): Condition[] {
  return Object.entries(until).map(([key, value]) =>
    Object.hasOwn(ALIASES, key)
      ? (ALIASES[key as AliasName].condition as (v: unknown) => Condition)(value)
      : ({ [key]: value } as Condition),
  );
}

/**
 * Checks the spec against the world now (throws 400 or 404 before anything runs), and returns what arms the
 * predicate: arming subscribes to the trace, so it must happen where the run starts, inside the logged change.
 */
export function compileUntil(world: World, until: UntilSpec): () => UntilCheck {
  const conditions = conditionsOf(until);
  const refs = serverChecks(world);
  for (const c of conditions) {
    const [kind, value] = Object.entries(c)[0]!;
    conditionDefinition(kind as (typeof KINDS)[number]).check?.(value, refs, ['until', kind]);
  }
  return () => arm(world, conditions);
}

function arm(world: World, conditions: readonly Condition[]): UntilCheck {
  const traces = new TraceWatch(world.sim);
  const ctx: ServerEval = {
    cluster: world.cluster,
    brokerIds: [...world.cluster.brokers.keys()],
    traces,
    workloadDone: (name) => world.workloads.get(name).done,
  };
  const checks = conditions.map((c) => {
    armCondition(c, ctx);
    const holds = () => evaluate(c, ctx).passed;
    if (conditionDefinition(Object.keys(c)[0] as (typeof KINDS)[number]).reads !== 'image') return holds;
    let seen: MetadataImage | undefined;
    let result = false;
    return () => {
      const image = world.cluster.image;
      if (image !== seen) {
        seen = image;
        result = holds();
      }
      return result;
    };
  });
  return { holds: () => checks.every((c) => c()), dispose: () => traces.dispose() };
}
