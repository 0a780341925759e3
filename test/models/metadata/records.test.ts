import { describe, expect, it } from 'vitest';
import { apiKeyOf, type MetadataRecord, newTopicId } from '../../../models/metadata/index.ts';

function decode(id: string): Buffer {
  return Buffer.from(id.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
}

function counterDraws(words: number[]): () => number {
  let i = 0;
  return () => words[i++ % words.length]!;
}

describe('apiKeyOf', () => {
  it("uses Kafka's apiKeys for every record type", () => {
    const cases: [MetadataRecord, number][] = [
      [
        {
          type: 'RegisterBrokerRecord',
          brokerId: 1,
          incarnationId: 'i',
          host: 'h',
          port: 9092,
          fenced: true,
        },
        0,
      ],
      [{ type: 'UnregisterBrokerRecord', brokerId: 1, brokerEpoch: 0 }, 1],
      [{ type: 'TopicRecord', name: 't', topicId: 'x' }, 2],
      [
        {
          type: 'PartitionRecord',
          topicId: 'x',
          partitionId: 0,
          replicas: [1],
          isr: [1],
          removingReplicas: [],
          addingReplicas: [],
          leader: 1,
          leaderEpoch: 0,
          partitionEpoch: 0,
        },
        3,
      ],
      [{ type: 'ConfigRecord', resourceType: 'TOPIC', resourceName: 't', name: 'k', value: 'v' }, 4],
      [{ type: 'PartitionChangeRecord', topicId: 'x', partitionId: 0 }, 5],
      [{ type: 'RemoveTopicRecord', topicId: 'x' }, 9],
      [{ type: 'FeatureLevelRecord', name: 'metadata.version', featureLevel: 20 }, 12],
      [{ type: 'BrokerRegistrationChangeRecord', brokerId: 1, brokerEpoch: 0, fenced: -1 }, 17],
      [{ type: 'NoOpRecord' }, 20],
    ];
    for (const [record, key] of cases) expect([record.type, apiKeyOf(record)]).toEqual([record.type, key]);
  });
});

describe('newTopicId', () => {
  it('is 22 URL-safe base64 chars encoding 16 bytes with the UUID v4 bits Kafka sets', () => {
    const id = newTopicId(() => 0xffffffff);
    // The URL-safe alphabet shows 62 and 63 as '-' and '_' (standard base64: '+' and '/').
    expect(id).toBe('________T_-__________w');
    expect(id).toMatch(/^[A-Za-z0-9_-]{22}$/);
    const bytes = decode(id);
    expect(bytes.length).toBe(16);
    expect(bytes[6]).toBe(0x4f);
    expect(bytes[8]).toBe(0xbf);
  });

  it('round-trips the bytes of a real Kafka id', () => {
    const bytes = decode('DNZe6gBQTrCOEAruQ_y2tg');
    const words = [0, 4, 8, 12].map((i) => bytes.readUInt32BE(i));
    expect(newTopicId(counterDraws(words))).toBe('DNZe6gBQTrCOEAruQ_y2tg');
  });

  it('never returns the all-zero (or ONE) id even from an all-zero generator', () => {
    const id = newTopicId(() => 0);
    expect(id).not.toBe('AAAAAAAAAAAAAAAAAAAAAA');
    expect(id).not.toBe('AAAAAAAAAAAAAAAAAAAAAQ');
    expect(decode(id).some((b) => b !== 0)).toBe(true);
  });

  it("redraws an id that would start with '-' (Kafka's tools would read it as a flag)", () => {
    const draws = [0xf8000000, 0, 0, 0, 0x12345678, 0x9abcdef0, 0x12345678, 0x9abcdef0];
    let calls = 0;
    const id = newTopicId(() => draws[calls++]!);
    expect(calls).toBe(8);
    expect(id.startsWith('-')).toBe(false);
    expect(id.startsWith('EjRW')).toBe(true);
  });

  it('is deterministic for a given draw sequence and differs between sequences', () => {
    const a = newTopicId(counterDraws([1, 2, 3, 4]));
    expect(newTopicId(counterDraws([1, 2, 3, 4]))).toBe(a);
    expect(newTopicId(counterDraws([1, 2, 3, 5]))).not.toBe(a);
  });
});
