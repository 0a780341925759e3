// The Raft test server's workflow (apache/kafka raft/README.md of the KAFKA-10533 era): servers started from
// raft-quorum-N.properties as the README writes them, a VerifiableProducer writing increasing values to
// __cluster_metadata, and kafka-producer-perf-test against the same topic. Checks the tools' lines and that the
// throughput comes from the model: the fsync a flush costs (kafkasim.raft.fsync.ms, leader and voters), the flush
// switch, and the quorum size.
import { describe, expect, it } from 'vitest';
import type { QuorumConfig } from '../../models/raft/index.ts';
import {
  parseRaftServerProperties,
  type RaftServerProperties,
  RaftTestServerCluster,
} from '../../src/cluster/raft-test-server.ts';

/** raft-quorum-N.properties as the README writes them (zookeeper.connect included). */
function properties(n: number, voters: number): RaftServerProperties {
  const list = Array.from({ length: voters }, (_, i) => `${i + 1}@localhost:${9092 + i}`).join(',');
  return {
    file: `config/raft-quorum-${n}.properties`,
    text: `broker.id=${n}\nlisteners=PLAINTEXT://localhost:${9091 + n}\nquorum.voters=${list}\nlog.dirs=/tmp/raft-logs-${n}\n\nzookeeper.connect=localhost:2181\nverbose=true\n`,
  };
}

function quorum(voters: number, config: Partial<QuorumConfig> = {}): RaftTestServerCluster {
  const c = new RaftTestServerCluster({
    properties: Array.from({ length: voters }, (_, i) => properties(i + 1, voters)),
    quorumConfig: config,
  });
  c.start();
  return c;
}

/** Records/s of a perf run of 2000 records of 10 bytes, unthrottled. */
function perfThroughput(c: RaftTestServerCluster): number {
  const r = c.producerPerfTest({
    bootstrapServer: 'localhost:9092',
    numRecords: 2000,
    throughput: -1,
    recordSize: 10,
  });
  c.sim.runUntil(() => r.summary !== undefined, { timeout: '60s' });
  const m = /^2000 records sent, ([\d.]+) records\/sec \([\d.]+ MB\/sec\), [\d.]+ ms avg latency/.exec(
    r.summary!,
  );
  expect(m, r.summary).not.toBeNull();
  return Number(m![1]);
}

/** Milliseconds from a VerifiableProducer's send of one value to its acknowledgement. */
function ackLatency(c: RaftTestServerCluster): number {
  const v = c.verifiableProducer({ bootstrapServer: 'localhost:9092', maxMessages: 1, throughput: 1 });
  c.sim.runFor('2s');
  expect(v.done).toBe(true);
  const stamp = (name: string) => JSON.parse(v.lines.find((l) => l.includes(`"name":"${name}"`))!).timestamp;
  return stamp('producer_send_success') - stamp('startup_complete');
}

describe('the Raft test server', () => {
  it('reads the README properties, accepting keys it does not use', () => {
    const s = parseRaftServerProperties(properties(2, 3));
    expect(s).toMatchObject({ nodeId: 2, host: 'localhost', port: 9093, logDirs: '/tmp/raft-logs-2' });
    expect(s.voters.map((v) => v.id)).toEqual([1, 2, 3]);
    expect(s.ignored).toEqual(['zookeeper.connect', 'verbose']);
    // Later READMEs: node.id and controller.quorum.voters.
    expect(
      parseRaftServerProperties({
        file: 'kraft-quorum-1.properties',
        text: 'node.id=1\nlisteners=PLAINTEXT://localhost:9092\ncontroller.quorum.voters=1@localhost:9092\n',
      }).voters,
    ).toEqual([{ id: 1, host: 'localhost', port: 9092 }]);
    expect(() =>
      parseRaftServerProperties({
        file: 'a.properties',
        text: 'broker.id=1\nlisteners=PLAINTEXT://localhost:9092\n',
      }),
    ).toThrow('a.properties: controller.quorum.voters or quorum.voters is required');
    expect(() =>
      parseRaftServerProperties({
        file: 'b.properties',
        text: 'broker.id=1\nlisteners=localhost\nquorum.voters=1@localhost:9092\n',
      }),
    ).toThrow("b.properties: listeners 'localhost' is not NAME://host:port");
  });

  it('VerifiableProducer: increasing values acknowledged at increasing offsets of __cluster_metadata, then its totals', () => {
    const c = quorum(3);
    const v = c.verifiableProducer({
      bootstrapServer: 'http://localhost:9092',
      maxMessages: 20,
      throughput: 1,
    });
    c.sim.runFor('25s');
    const events = v.lines.map((l) => JSON.parse(l));
    expect(events.map((e) => e.name)).toEqual([
      'startup_complete',
      ...Array(20).fill('producer_send_success'),
      'shutdown_complete',
      'tool_data',
    ]);
    const sends = events.slice(1, 21);
    expect(sends.map((e) => e.value)).toEqual(Array.from({ length: 20 }, (_, i) => String(i)));
    expect(sends.every((e) => e.topic === '__cluster_metadata' && e.partition === 0 && e.key === null)).toBe(
      true,
    );
    const offsets = sends.map((e) => e.offset);
    expect(offsets).toEqual([...offsets].sort((a, b) => a - b));
    expect(new Set(offsets).size).toBe(20);
    // One a second: 20 values over about 19 s.
    expect(sends[19].timestamp - sends[0].timestamp).toBeGreaterThan(18_900);
    const tool = events.at(-1);
    expect(tool).toMatchObject({ sent: 20, acked: 20, target_throughput: 1 });
    expect(tool.avg_throughput).toBeGreaterThan(1);
    expect(tool.avg_throughput).toBeLessThan(1.1);
  });

  it('a write waits for the leader fsync, and with three voters for a voter fsync, the two overlapping', () => {
    const base = ackLatency(quorum(1));
    expect(ackLatency(quorum(1, { 'kafkasim.raft.fsync.ms': 10 })) - base).toBeCloseTo(10, 0);
    const base3 = ackLatency(quorum(3));
    // The leader answers the parked fetches before it flushes (KafkaRaftClient.flushLeaderLog), so a voter writes and
    // flushes while the leader does: the HW moves one fsync later, not two (it took 20 ms more when the leader
    // served the records only after its own flush).
    expect(ackLatency(quorum(3, { 'kafkasim.raft.fsync.ms': 10 })) - base3).toBeCloseTo(10, 0);
    // Without the flush guarantees nobody waits for a disk.
    expect(
      ackLatency(quorum(3, { 'kafkasim.raft.fsync.ms': 10, 'kafkasim.raft.flush.enable': false })),
    ).toBeLessThanOrEqual(base3);
  });

  it("kafka-producer-perf-test's throughput moves with the fsync, the flush switch and the quorum size", () => {
    const disk = { 'kafkasim.raft.fsync.ms': 5, 'kafkasim.raft.append.ms': 0.5 };
    const three = perfThroughput(quorum(3, disk));
    expect(perfThroughput(quorum(3, { ...disk, 'kafkasim.raft.flush.enable': false }))).toBeGreaterThan(
      three,
    );
    expect(perfThroughput(quorum(1, disk))).toBeGreaterThan(three);
    expect(perfThroughput(quorum(3, { ...disk, 'kafkasim.raft.fsync.ms': 20 }))).toBeLessThan(three);
  });
});
