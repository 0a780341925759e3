import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  emptyImage,
  type LogEntry,
  type MetadataImage,
  type MetadataRecord,
  newTopicId,
  replay,
} from '../../../models/metadata/index.ts';
import { isDeepFrozen } from './fixtures.ts';

/**
 * One random decision. The builder below turns a list of them into a VALID record sequence by tracking
 * the state a controller would know, so shrinking keeps sequences valid.
 */
interface Choice {
  readonly kind: number;
  readonly a: number;
  readonly b: number;
  readonly picks: readonly number[];
  readonly gap: boolean;
}

const choiceArb: fc.Arbitrary<Choice> = fc.record({
  kind: fc.integer({ min: 0, max: 9 }),
  a: fc.nat(1000),
  b: fc.nat(1000),
  picks: fc.array(fc.integer({ min: 0, max: 5 }), { maxLength: 4 }),
  gap: fc.boolean(),
});

interface Model {
  readonly brokers: Map<number, number>; // id -> brokerEpoch
  readonly topics: Map<string, { name: string; partitions: number }>; // topicId -> topic
  readonly topicConfigKeys: Map<string, Set<string>>; // topic name -> keys
}

const NAMES = ['orders', 'payments', 'clicks', 'toString', 'logs'];
const CONFIG_KEYS = ['retention.ms', 'cleanup.policy', 'min.insync.replicas'];

function buildEntries(choices: readonly Choice[]): { entries: LogEntry[]; model: Model } {
  const model: Model = { brokers: new Map(), topics: new Map(), topicConfigKeys: new Map() };
  const entries: LogEntry[] = [];
  let offset = -1;
  let topicsCreated = 0;
  const push = (gap: boolean, ...records: MetadataRecord[]) => {
    for (const record of records) {
      // Gaps stand for Raft control records, which take offsets but are never replayed.
      offset += gap ? 2 : 1;
      entries.push({ offset, record });
    }
  };
  const nth = <T>(items: readonly T[], i: number): T | undefined =>
    items.length === 0 ? undefined : items[i % items.length];
  const replicasFrom = (picks: readonly number[]) => [...new Set(picks.length > 0 ? picks : [0])];

  for (const c of choices) {
    const brokerIds = [...model.brokers.keys()];
    const topicIds = [...model.topics.keys()];
    switch (c.kind) {
      case 0: {
        const brokerId = c.a % 6;
        push(c.gap, {
          type: 'RegisterBrokerRecord',
          brokerId,
          incarnationId: `inc-${c.b}`,
          rack: c.b % 2 === 0 ? null : `rack-${c.b % 3}`,
          host: `broker-${brokerId}`,
          port: 9092,
          fenced: c.b % 4 !== 0,
        });
        model.brokers.set(brokerId, offset);
        break;
      }
      case 1: {
        const brokerId = nth(brokerIds, c.a);
        if (brokerId === undefined) break;
        push(c.gap, { type: 'UnregisterBrokerRecord', brokerId, brokerEpoch: model.brokers.get(brokerId)! });
        model.brokers.delete(brokerId);
        break;
      }
      case 2: {
        const brokerId = nth(brokerIds, c.a);
        if (brokerId === undefined) break;
        push(c.gap, {
          type: 'BrokerRegistrationChangeRecord',
          brokerId,
          brokerEpoch: model.brokers.get(brokerId)!,
          fenced: ([1, -1, 0] as const)[c.b % 3]!,
          ...(c.b % 5 === 0 ? { inControlledShutdown: 1 as const } : {}),
        });
        break;
      }
      case 3: {
        const used = new Set([...model.topics.values()].map((t) => t.name));
        const name =
          NAMES.find((n, i) => !used.has(n) && i >= c.a % NAMES.length) ?? NAMES.find((n) => !used.has(n));
        if (name === undefined) break;
        const n = topicsCreated++;
        const words = [n, 0xdead, 0xbeef, c.a];
        let draw = 0;
        const topicId = newTopicId(() => words[draw++ % words.length]!);
        const partitions = 1 + (c.b % 3);
        const replicas = replicasFrom(c.picks);
        push(c.gap, { type: 'TopicRecord', name, topicId });
        if (c.b % 2 === 0) {
          push(c.gap, {
            type: 'ConfigRecord',
            resourceType: 'TOPIC',
            resourceName: name,
            name: 'retention.ms',
            value: '1000',
          });
          model.topicConfigKeys.set(name, new Set(['retention.ms']));
        }
        for (let p = 0; p < partitions; p++) {
          push(c.gap, {
            type: 'PartitionRecord',
            topicId,
            partitionId: p,
            replicas,
            isr: replicas,
            removingReplicas: [],
            addingReplicas: [],
            leader: replicas[0]!,
            leaderEpoch: 0,
            partitionEpoch: 0,
          });
        }
        model.topics.set(topicId, { name, partitions });
        break;
      }
      case 4: {
        const topicId = nth(topicIds, c.a);
        if (topicId === undefined) break;
        const t = model.topics.get(topicId)!;
        const replicas = replicasFrom(c.picks);
        push(c.gap, {
          type: 'PartitionRecord',
          topicId,
          partitionId: t.partitions,
          replicas,
          isr: replicas.slice(0, 1 + (c.b % replicas.length)),
          removingReplicas: [],
          addingReplicas: [],
          leader: replicas[0]!,
          leaderEpoch: 0,
          partitionEpoch: 0,
        });
        t.partitions += 1;
        break;
      }
      case 5: {
        const topicId = nth(topicIds, c.a);
        if (topicId === undefined) break;
        const picked = replicasFrom(c.picks);
        const bits = c.b;
        push(c.gap, {
          type: 'PartitionChangeRecord',
          topicId,
          partitionId: c.b % model.topics.get(topicId)!.partitions,
          ...(bits & 1 ? { leader: [-2, -1, picked[0]!][bits % 3]! } : {}),
          ...(bits & 2 ? { isr: picked } : {}),
          ...(bits & 4 ? { replicas: picked } : {}),
          ...(bits & 8 ? { removingReplicas: picked.slice(1) } : {}),
          ...(bits & 16 ? { addingReplicas: picked.slice(0, 1) } : {}),
        });
        break;
      }
      case 6: {
        const topicId = nth(topicIds, c.a);
        if (topicId === undefined) break;
        push(c.gap, { type: 'RemoveTopicRecord', topicId });
        model.topicConfigKeys.delete(model.topics.get(topicId)!.name);
        model.topics.delete(topicId);
        break;
      }
      case 7: {
        const t = nth([...model.topics.values()], c.a);
        if (t === undefined) break;
        const key = nth(CONFIG_KEYS, c.b)!;
        const value = c.b % 3 === 0 ? null : `v${c.b}`;
        push(c.gap, { type: 'ConfigRecord', resourceType: 'TOPIC', resourceName: t.name, name: key, value });
        const keys = model.topicConfigKeys.get(t.name) ?? new Set<string>();
        if (value === null) keys.delete(key);
        else keys.add(key);
        if (keys.size === 0) model.topicConfigKeys.delete(t.name);
        else model.topicConfigKeys.set(t.name, keys);
        break;
      }
      case 8:
        push(c.gap, {
          type: 'ConfigRecord',
          resourceType: 'BROKER',
          resourceName: c.a % 4 === 0 ? '' : String(c.a % 6),
          name: nth(CONFIG_KEYS, c.b)!,
          value: c.b % 3 === 0 ? null : `v${c.b}`,
        });
        break;
      default:
        push(
          c.gap,
          c.a % 2 === 0
            ? { type: 'NoOpRecord' }
            : { type: 'FeatureLevelRecord', name: 'metadata.version', featureLevel: c.b % 4 },
        );
    }
  }
  return { entries, model };
}

/** Splits entries into consecutive chunks whose sizes cycle through `sizes`. */
function chunk(entries: readonly LogEntry[], sizes: readonly number[]): LogEntry[][] {
  const chunks: LogEntry[][] = [];
  for (let i = 0, k = 0; i < entries.length; k++) {
    const size = sizes[k % sizes.length]!;
    chunks.push(entries.slice(i, i + size));
    i += size;
  }
  return chunks;
}

describe('replay (property)', () => {
  it('replaying in any chunking equals replaying at once, never mutates its input, and tracks the model', () => {
    fc.assert(
      fc.property(
        fc.array(choiceArb, { maxLength: 80, size: 'max' }),
        fc.array(fc.integer({ min: 1, max: 12 }), { minLength: 1, maxLength: 8 }),
        (choices, sizes) => {
          const { entries, model } = buildEntries(choices);
          const whole = replay(emptyImage(), entries);

          let image: MetadataImage = emptyImage();
          for (const part of chunk(entries, sizes)) {
            const before = structuredClone(image);
            const next = replay(image, part);
            expect(isDeepFrozen(image)).toBe(true);
            expect(image).toEqual(before);
            image = next;
          }

          expect(image).toEqual(whole);
          expect(isDeepFrozen(whole)).toBe(true);
          expect(whole.offset).toBe(entries.at(-1)?.offset ?? -1);

          // The reducer agrees with the generator's own model of the cluster.
          expect(
            Object.fromEntries(Object.values(whole.brokers).map((b) => [b.brokerId, b.brokerEpoch])),
          ).toEqual(Object.fromEntries(model.brokers));
          expect(whole.topicNamesById).toEqual(
            Object.fromEntries([...model.topics].map(([id, t]) => [id, t.name])),
          );
          for (const t of model.topics.values()) {
            expect(whole.topics[t.name]!.partitions.map((p) => p.partition)).toEqual(
              Array.from({ length: t.partitions }, (_, i) => i),
            );
          }
          expect(
            Object.fromEntries(
              Object.entries(whole.configs.topic).map(([n, kv]) => [n, Object.keys(kv).sort()]),
            ),
          ).toEqual(Object.fromEntries([...model.topicConfigKeys].map(([n, keys]) => [n, [...keys].sort()])));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('epochs follow PartitionChangeRecords: partitionEpoch counts changes, leaderEpoch counts leader fields', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(undefined, -2, -1, 0, 1, 2), { maxLength: 40 }), (leaders) => {
        const topicId = 'AAAAAAAAQACAAAAAAAAAAQ';
        const records: MetadataRecord[] = [
          { type: 'TopicRecord', name: 't', topicId },
          {
            type: 'PartitionRecord',
            topicId,
            partitionId: 0,
            replicas: [0, 1, 2],
            isr: [0, 1, 2],
            removingReplicas: [],
            addingReplicas: [],
            leader: 0,
            leaderEpoch: 0,
            partitionEpoch: 0,
          },
          ...leaders.map(
            (leader): MetadataRecord => ({
              type: 'PartitionChangeRecord',
              topicId,
              partitionId: 0,
              ...(leader === undefined ? {} : { leader }),
            }),
          ),
        ];
        const image = replay(
          emptyImage(),
          records.map((record, offset) => ({ offset, record })),
        );
        const p = image.topics.t!.partitions[0]!;
        const leaderChanges = leaders.filter((l) => l !== undefined && l !== -2);
        expect(p.partitionEpoch).toBe(leaders.length);
        expect(p.leaderEpoch).toBe(leaderChanges.length);
        expect(p.leader).toBe(leaderChanges.at(-1) ?? 0);
      }),
      { numRuns: 200 },
    );
  });
});
