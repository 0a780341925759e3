// Source workflow A by hand (source-scenarios.md A, steps 1–3): 2 brokers, an 8-partition topic, every partition
// reassigned to broker 2 with the workflow's own JSON, and kafka-topics --describe in the tool's exact format.
import { describe, expect, it } from 'vitest';
import { createCluster } from '../../src/cluster/index.ts';
import { parseReassignmentJson } from '../../src/format/index.ts';

const TOPIC = 'continuous-self-balancing-topic';

function automqCluster(seed: number) {
  return createCluster({
    seed,
    brokers: [{ id: 1 }, { id: 2 }],
    storage: 'shared',
    serverProperties: { 'min.insync.replicas': '1', 'log.segment.bytes': '1073741824' },
  });
}

describe('source workflow A, steps 1-3', () => {
  it('creates, describes, reassigns everything to broker 2 and describes again', () => {
    const c = automqCluster(7);
    c.admin.createTopic({ name: TOPIC, partitions: 8 });
    c.runFor('1s');
    const before = c.describeTopic(TOPIC).split('\n');
    expect(before[0]).toMatch(
      /^Topic: continuous-self-balancing-topic\tTopicId: [A-Za-z0-9_-]{22}\tPartitionCount: 8\tReplicationFactor: 1\tConfigs: min\.insync\.replicas=1,segment\.bytes=1073741824$/,
    );
    const leaders = before.slice(1, 9).map((line, p) => {
      const m = new RegExp(
        `^\\tTopic: ${TOPIC}\\tPartition: ${p}\\tLeader: (\\d)\\tReplicas: (\\d)\\tIsr: (\\d)$`,
      ).exec(line);
      expect(m, line).not.toBeNull();
      expect(m![1]).toBe(m![2]);
      expect(m![1]).toBe(m![3]);
      return Number(m![1]);
    });
    // Placement spreads the 8 partitions over both brokers, 4 each.
    expect(leaders.filter((l) => l === 1)).toHaveLength(4);
    expect(leaders.filter((l) => l === 2)).toHaveLength(4);

    const move = parseReassignmentJson(
      JSON.stringify({
        partitions: Array.from({ length: 8 }, (_, p) => ({ topic: TOPIC, partition: p, replicas: [2] })),
        version: 1,
      }),
    );
    const res = c.admin.alterPartitionReassignments(
      move.partitions.map((p) => ({ ...p, replicas: [...p.replicas] })),
    );
    expect(res.errorCode).toBe(0);
    expect(res.partitions.every((p) => p.errorCode === 0)).toBe(true);
    c.runUntil(
      () =>
        c
          .describeTopic(TOPIC)
          .split('\n')
          .slice(1, 9)
          .every((l) => l.includes('\tLeader: 2\t')),
      {
        timeout: '10s',
        description: 'every partition led by broker 2',
      },
    );
    const after = c.describeTopic(TOPIC);
    const expected = Array.from(
      { length: 8 },
      (_, p) => `\tTopic: ${TOPIC}\tPartition: ${p}\tLeader: 2\tReplicas: 2\tIsr: 2`,
    ).join('\n');
    expect(after.split('\n').slice(1, 9).join('\n')).toBe(expected);
  });

  it('a shared-storage move takes about 1.5 s with no leader in between', () => {
    const c = automqCluster(3);
    c.admin.createTopic({ name: TOPIC, partitions: 2, assignments: undefined });
    c.runFor('1s');
    const p = c.image.topics[TOPIC]!.partitions.findIndex((r) => r.leader === 1);
    expect(p).toBeGreaterThanOrEqual(0);
    const start = c.now;
    c.admin.alterPartitionReassignments([{ topic: TOPIC, partition: p, replicas: [2] }]);
    expect(c.image.topics[TOPIC]!.partitions[p]!.leader).toBe(-1);
    const led = c.runUntil(() => c.broker(2).findReplica(TOPIC, p)?.role === 'leader', { timeout: '10s' });
    expect(led - start).toBeGreaterThan(1400);
    expect(led - start).toBeLessThan(1700);
  });
});
