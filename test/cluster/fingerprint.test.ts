// The run's fingerprint covers the data plane: every batch appended to every replica's log (offsets, batch
// boundaries, sizes, record identities), every truncation. Two runs whose data differ by one record hash
// differently even when their events and trace are the same.
import { describe, expect, it } from 'vitest';
import type { RecordBatch } from '../../models/storage/index.ts';
import { type Cluster, createCluster } from '../../src/cluster/index.ts';

function run(records: number): Cluster {
  const c = createCluster({ seed: 11, brokers: 3 });
  c.admin.createTopic({ name: 't', partitions: 2, replicationFactor: 3 });
  const p = c.producer('p', { flavour: 'java' });
  p.sendMany('t', records, 100);
  c.runFor('3s');
  return c;
}

function traceEvents(c: Cluster): string[] {
  return c.sim.trace.recent().map((e) => JSON.stringify(e));
}

describe('the fingerprint covers the data plane', () => {
  it('the same run twice: the same fingerprint', () => {
    expect(run(500).sim.fingerprint.hash).toBe(run(500).sim.fingerprint.hash);
  });

  it('one record more in a follower replica changes it, and nothing else about the run does', () => {
    const a = run(500);
    const b = run(500);
    const follower = [...b.brokers.values()]
      .flatMap((br) => [...br.replicas.values()])
      .find((r) => r.topic === 't' && r.role === 'follower')!;
    const log = follower.log;
    const last = log.allBatches().at(-1)!;
    const extra: RecordBatch = { ...last, baseOffset: log.logEndOffset, count: 1 };
    log.appendAsFollower([extra]);
    expect(b.sim.eventCount).toBe(a.sim.eventCount);
    expect(traceEvents(b)).toEqual(traceEvents(a));
    expect(b.sim.fingerprint.hash).not.toBe(a.sim.fingerprint.hash);
  });

  it('a truncation changes it', () => {
    const a = run(500);
    const b = run(500);
    const replica = [...b.brokers.values()]
      .flatMap((br) => [...br.replicas.values()])
      .find((r) => r.topic === 't' && r.role === 'follower' && r.log.batchCount > 1)!;
    replica.log.truncateTo(replica.log.allBatches().at(-1)!.baseOffset);
    expect(b.sim.fingerprint.hash).not.toBe(a.sim.fingerprint.hash);
  });

  it('a producer sending one record more gives another fingerprint', () => {
    expect(run(501).sim.fingerprint.hash).not.toBe(run(500).sim.fingerprint.hash);
  });
});
