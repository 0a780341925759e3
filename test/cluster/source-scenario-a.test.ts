// Source workflow A by hand (AutoMQ's self-balancing example, steps 1–3): 2 brokers, an 8-partition topic, every
// partition reassigned to broker 2 with the workflow's own JSON, and kafka-topics --describe in the tool's exact
// format.
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

  /** Moves one partition from broker 1 to 2; returns the move's trace, from the request on. */
  function move(brokerConfig?: Record<string, number>) {
    const c = createCluster({
      seed: 3,
      brokers: [{ id: 1 }, { id: 2 }],
      storage: 'shared',
      ...(brokerConfig ? { brokerConfig } : {}),
    });
    c.admin.createTopic({ name: TOPIC, partitions: 2 });
    c.runFor('1s');
    const p = c.image.topics[TOPIC]!.partitions.findIndex((r) => r.leader === 1);
    const events: { t: number; kind: string; node?: string }[] = [];
    c.sim.trace.subscribe((e) => {
      if ((e.topic === TOPIC && e.partition === p) || e.kind === 'controller.streams-closed') events.push(e);
    });
    const start = c.now;
    c.admin.alterPartitionReassignments([{ topic: TOPIC, partition: p, replicas: [2] }]);
    expect(c.image.topics[TOPIC]!.partitions[p]!.leader).toBe(-1);
    const led = c.runUntil(() => c.broker(2).findReplica(TOPIC, p)?.role === 'leader', { timeout: '10s' });
    const at = (kind: string) => events.find((e) => e.kind === kind)?.t ?? Number.NaN;
    return { elapsed: led - start, at };
  }

  it('a shared-storage move: leader -1, the old broker closes, then the new one opens, then it is elected', () => {
    const { elapsed, at } = move();
    // AutoMQ's order: the old owner closes and releases the streams; the new one opens them only then, and asks
    // for its election only once it has opened the partition, so clients are never sent to it before it serves.
    expect(at('broker.partition-closing')).toBeLessThan(at('broker.partition-closed'));
    expect(at('broker.partition-closed')).toBeLessThanOrEqual(at('controller.streams-closed'));
    expect(at('controller.streams-closed')).toBeLessThan(at('broker.partition-opened'));
    expect(at('broker.partition-opened')).toBeLessThan(at('broker.leader'));
    // Fast reassignment (no WAL upload or object-storage replay on the path): tens of milliseconds.
    expect(elapsed).toBeLessThan(100);
    // The legacy path's close and open (about 1.5 s per move, as AutoMQ's docs describe it) are settings.
    const legacy = move({
      'kafkasim.shared.partition.close.ms': 1000,
      'kafkasim.shared.partition.open.ms': 500,
    });
    expect(legacy.elapsed).toBeGreaterThan(1500);
    expect(legacy.elapsed).toBeLessThan(1600);
  });
});
