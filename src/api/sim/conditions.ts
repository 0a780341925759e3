// What `POST /sim/advance {until: ...}` can wait for. Every key given must hold (AND). Conditions that read the
// metadata image are cached per image (images are immutable), so checking after every event stays cheap.
import type { MetadataImage } from '../../../models/metadata/index.ts';
import { isReassigning } from '../../../models/metadata/index.ts';
import type { TraceEvent } from '../../../models/sim/index.ts';
import { badRequest } from '../errors.ts';
import type { World } from '../host.ts';

export interface UntilSpec {
  /** No partition has a reassignment in progress. */
  reassignments_done?: boolean;
  /** This workload has finished (its summary is printed). */
  workload_done?: string;
  /** Every partition of `topic` is led by `broker` (e.g. after moving them all there). */
  partitions_led_by?: { topic: string; broker: number };
  /** Every partition of this topic has a leader. */
  topic_has_leaders?: string;
  /** At most this many partitions have an ISR smaller than their replica set. */
  under_replicated_at_most?: number;
  /** Every registered broker is unfenced. */
  brokers_unfenced?: boolean;
  /** A trace event whose kind starts with this happens (after the advance began). */
  trace_kind?: string;
}

export const untilSchema = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: {
    reassignments_done: { type: 'boolean', const: true },
    workload_done: { type: 'string', minLength: 1, maxLength: 64 },
    partitions_led_by: {
      type: 'object',
      additionalProperties: false,
      required: ['topic', 'broker'],
      properties: { topic: { type: 'string', maxLength: 1024 }, broker: { type: 'integer' } },
    },
    topic_has_leaders: { type: 'string', maxLength: 1024 },
    under_replicated_at_most: { type: 'integer', minimum: 0 },
    brokers_unfenced: { type: 'boolean', const: true },
    trace_kind: { type: 'string', minLength: 1, maxLength: 200 },
  },
} as const;

export interface UntilCheck {
  holds: () => boolean;
  dispose: () => void;
}

/**
 * Checks the spec against the world now (throws 400 before anything runs), and returns what arms the
 * predicate: arming subscribes to the trace, so it must happen where the run starts, inside the logged change.
 */
export function compileUntil(world: World, until: UntilSpec): () => UntilCheck {
  if (until.workload_done !== undefined) world.workloads.get(until.workload_done);
  for (const topic of [until.partitions_led_by?.topic, until.topic_has_leaders]) {
    if (topic !== undefined && !Object.hasOwn(world.cluster.image.topics, topic))
      throw badRequest(`until: no topic '${topic}'`);
  }
  return () => arm(world, until);
}

function arm(world: World, until: UntilSpec): UntilCheck {
  const checks: (() => boolean)[] = [];
  const cluster = world.cluster;
  let dispose = () => {};

  const onImage = (test: (image: MetadataImage) => boolean) => {
    let seen: MetadataImage | undefined;
    let result = false;
    return () => {
      const image = cluster.image;
      if (image !== seen) {
        seen = image;
        result = test(image);
      }
      return result;
    };
  };

  if (until.workload_done !== undefined) {
    const w = world.workloads.get(until.workload_done);
    checks.push(() => w.done);
  }
  if (until.reassignments_done) {
    checks.push(
      onImage((image) => Object.values(image.topics).every((t) => !t.partitions.some(isReassigning))),
    );
  }
  if (until.partitions_led_by) {
    const { topic, broker } = until.partitions_led_by;
    checks.push(
      onImage((image) => image.topics[topic]?.partitions.every((p) => p.leader === broker) ?? false),
    );
  }
  if (until.topic_has_leaders !== undefined) {
    const topic = until.topic_has_leaders;
    checks.push(onImage((image) => image.topics[topic]?.partitions.every((p) => p.leader >= 0) ?? false));
  }
  if (until.under_replicated_at_most !== undefined) {
    const max = until.under_replicated_at_most;
    checks.push(
      onImage((image) => {
        let n = 0;
        for (const t of Object.values(image.topics))
          for (const p of t.partitions) if (p.isr.length < p.replicas.length) n++;
        return n <= max;
      }),
    );
  }
  if (until.brokers_unfenced) {
    checks.push(onImage((image) => Object.values(image.brokers).every((b) => !b.fenced)));
  }
  if (until.trace_kind !== undefined) {
    const prefix = until.trace_kind;
    let seen = false;
    dispose = world.sim.trace.subscribe((e: TraceEvent) => {
      if (e.kind.startsWith(prefix)) seen = true;
    });
    checks.push(() => seen);
  }
  return { holds: () => checks.every((c) => c()), dispose: () => dispose() };
}
