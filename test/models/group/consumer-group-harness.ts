// A consumer-protocol group on a simulation clock with a hand-made metadata image: what the consumer-group tests
// drive directly (no network, no broker).
import {
  ConsumerGroup,
  type ConsumerGroupConfig,
  type ConsumerGroupHost,
  consumerGroupConfig,
  validateHeartbeat,
} from '../../../models/group/index.ts';
import type { MetadataImage } from '../../../models/metadata/index.ts';
import type {
  ConsumerGroupHeartbeatRequest,
  ConsumerGroupHeartbeatResponse,
  ConsumerGroupHeartbeatTopicPartitions,
} from '../../../models/protocol/index.ts';
import { Simulation } from '../../../models/sim/index.ts';

export interface Harness {
  sim: Simulation;
  group: ConsumerGroup;
  config: ConsumerGroupConfig;
  events: { t: number; kind: string; [k: string]: unknown }[];
  /** Sets a topic's partition count (0 deletes it) and tells the group, as the coordinator's image hook does. */
  setTopic(name: string, partitions: number): void;
  /** Validates and sends a heartbeat. */
  heartbeat(req: Partial<ConsumerGroupHeartbeatRequest>): ConsumerGroupHeartbeatResponse;
}

/** Topic ids are `id-<name>`, unless a topic was deleted and recreated (`id-<name>-2`, ...). */
export function harness(
  topics: Record<string, number>,
  serverProperties: Record<string, string> = {},
): Harness {
  const sim = new Simulation({ seed: 1 });
  const events: Harness['events'] = [];
  let image = makeImage({});
  const ids: Record<string, string> = {};
  const incarnations: Record<string, number> = {};
  const counts: Record<string, number> = {};
  const rebuild = () => {
    image = makeImage(
      Object.fromEntries(Object.entries(counts).map(([n, c]) => [n, { id: ids[n]!, count: c }])),
    );
  };
  for (const [name, n] of Object.entries(topics)) {
    ids[name] = `id-${name}`;
    incarnations[name] = 1;
    counts[name] = n;
  }
  rebuild();
  const config = consumerGroupConfig(serverProperties);
  let next = 0;
  const host: ConsumerGroupHost = {
    consumerConfig: config,
    now: () => sim.now,
    schedule: (delay, fn, label) => sim.schedule(delay, fn, label),
    emit: (kind, fields) => events.push({ t: sim.now, kind, ...fields }),
    newMemberId: () => `m${++next}`,
    image: () => image,
  };
  const group = new ConsumerGroup('g', host);
  return {
    sim,
    group,
    config,
    events,
    setTopic(name, partitions) {
      if (partitions === 0) delete counts[name];
      else {
        if (!(name in counts) && name in ids) {
          incarnations[name] = (incarnations[name] ?? 1) + 1;
          ids[name] = `id-${name}-${incarnations[name]}`;
        }
        ids[name] ??= `id-${name}`;
        counts[name] = partitions;
      }
      rebuild();
      group.onTopicsChanged([name]);
    },
    heartbeat(partial) {
      const req = request(partial);
      validateHeartbeat(req, config);
      return group.heartbeat(req);
    },
  };
}

export function request(partial: Partial<ConsumerGroupHeartbeatRequest>): ConsumerGroupHeartbeatRequest {
  return {
    type: 'ConsumerGroupHeartbeat',
    groupId: 'g',
    memberId: '',
    memberEpoch: 0,
    instanceId: null,
    rackId: null,
    rebalanceTimeoutMs: partial.memberEpoch === undefined || partial.memberEpoch === 0 ? 300_000 : -1,
    subscribedTopicNames: partial.memberEpoch === undefined || partial.memberEpoch === 0 ? ['t'] : null,
    subscribedTopicRegex: null,
    serverAssignor: null,
    topicPartitions: partial.memberEpoch === undefined || partial.memberEpoch === 0 ? [] : null,
    clientId: 'c',
    clientHost: '/10.0.0.1',
    ...partial,
  };
}

function makeImage(topics: Record<string, { id: string; count: number }>): MetadataImage {
  const reg = { replicas: [1], isr: [1], leader: 1, leaderEpoch: 0, partitionEpoch: 0 };
  return {
    offset: 0,
    brokers: {},
    topics: Object.fromEntries(
      Object.entries(topics).map(([name, t]) => [
        name,
        { name, topicId: t.id, partitions: Array.from({ length: t.count }, () => reg) },
      ]),
    ),
    topicNamesById: Object.fromEntries(Object.entries(topics).map(([name, t]) => [t.id, name])),
    configs: { topic: {}, broker: {} },
    features: {},
  } as unknown as MetadataImage;
}

/** `id-t` partitions of a response's assignment, sorted, as `topicId:p`. */
export function owned(r: ConsumerGroupHeartbeatResponse): string[] {
  return flatten(r.assignment?.topicPartitions ?? []);
}

export function flatten(tps: readonly ConsumerGroupHeartbeatTopicPartitions[]): string[] {
  return tps.flatMap((tp) => tp.partitions.map((p) => `${tp.topicId}:${p}`)).sort();
}

export function topicPartitions(keys: readonly string[]): ConsumerGroupHeartbeatTopicPartitions[] {
  const by = new Map<string, number[]>();
  for (const k of keys) {
    const i = k.lastIndexOf(':');
    const t = k.slice(0, i);
    by.set(t, [...(by.get(t) ?? []), Number(k.slice(i + 1))]);
  }
  return [...by].map(([topicId, partitions]) => ({ topicId, partitions: partitions.sort((a, b) => a - b) }));
}
