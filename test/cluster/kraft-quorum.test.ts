// A cluster whose controllers form a KRaft quorum: the Raft invariants run on the cluster's simulation (so a
// scenario's `invariants: held` covers them), the metadata append load keeps an exact counter across
// failovers, the quorum status counts leader changes and unavailability, and AutoMQ's auto-balancer follows the
// active controller when it fails over.
import { describe, expect, it } from 'vitest';
import { InvariantViolation } from '../../models/sim/index.ts';
import { Cluster, createCluster } from '../../src/cluster/index.ts';
import { steadyLoad } from '../models/balancer/steady-load.ts';

const KiB = 1024;

/** The names of the invariants registered on a simulation (read from its private list). */
function invariantNames(c: Cluster): string[] {
  return (Reflect.get(c.sim, 'invariants') as { name: string }[]).map((i) => i.name);
}

describe('the Raft invariants on the cluster simulation', () => {
  it('are registered with a quorum (the load adds ReplicatedCounter), and not for a single controller', () => {
    expect(
      invariantNames(new Cluster({ seed: 2, controllers: 3, metadataLoad: { recordsPerSec: 1 } })),
    ).toEqual(
      expect.arrayContaining([
        'MonotonicHighWatermark',
        'MonotonicEpoch',
        'MajorityReachedHighWatermark',
        'SingleLeader',
        'ReplicatedCounter',
      ]),
    );
    expect(invariantNames(new Cluster({ seed: 2 }))).not.toContain('SingleLeader');
  });

  it('a single controller takes no quorum settings', () => {
    expect(() => new Cluster({ quorumConfig: { 'kafkasim.raft.flush.enable': false } })).toThrow(
      /needs controllers >= 2/,
    );
  });
});

describe('the metadata append load', () => {
  function killLeaderThenPowerLoss(c: Cluster): void {
    for (let i = 0; i < 3; i++) {
      c.runFor('4s');
      const active = c.activeController()!;
      active.crash();
      c.runFor('500ms');
      active.start();
    }
    c.runFor('4s');
    for (const x of c.controllers) x.crash();
    c.runFor('1s');
    for (const x of c.controllers) x.start();
    c.runFor('10s');
  }

  it('keeps an exact counter through leader crashes and a power loss, with the flush guarantees', () => {
    const c = createCluster({ seed: 4, controllers: 3, metadataLoad: { recordsPerSec: 50 } });
    killLeaderThenPowerLoss(c);
    const s = c.metadataLoadStatus()!;
    expect(s.violation).toBeUndefined();
    expect(s.committed).toBeGreaterThan(1000);
    // Everything acknowledged is committed on the active controller, which read 1..committed in order.
    expect(s.committed).toBeGreaterThanOrEqual(s.maxAcknowledged);
    expect(s.acknowledged).toBeGreaterThan(1000);
    const q = c.quorumStatus();
    expect(q.activeController).toBeDefined();
    expect(q.leaderChanges).toBe(4);
    expect(q.unavailableMs).toBeGreaterThan(0);
    expect(q.unavailableMs).toBeLessThan(10_000);
    expect(q.epoch).toBeGreaterThan(1);
  });

  it('without them the power loss takes acknowledged appends and MonotonicHighWatermark fails', () => {
    const c = createCluster({
      seed: 4,
      controllers: 3,
      metadataLoad: { recordsPerSec: 50 },
      quorumConfig: { 'kafkasim.raft.flush.enable': false },
    });
    let error: unknown;
    try {
      killLeaderThenPowerLoss(c);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InvariantViolation);
    expect((error as InvariantViolation).invariant).toBe('MonotonicHighWatermark');
    expect((error as InvariantViolation).context.seed).toBe('4');
  });

  it('the ReplicatedCounter invariant reports a broken sequence', () => {
    const c = createCluster({ seed: 1, controllers: 3, metadataLoad: { recordsPerSec: 20 } });
    c.runFor('1s');
    c.metadataLoads[1]!.violation = 'controller-3001: expected 5, found 7';
    expect(() => c.runFor('1s')).toThrow(/invariant ReplicatedCounter violated: controller-3001: expected 5/);
  });
});

describe('the auto-balancer with a controller quorum', () => {
  it('runs only on the active controller and continues on the new one after the active controller dies', () => {
    const c = createCluster({
      seed: 5,
      brokers: 2,
      controllers: 3,
      storage: 'shared',
      autobalancer: { 'autobalancer.controller.anomaly.detect.interval.ms': 20_000 },
    });
    c.admin.createTopic({ name: 'hot', assignments: [[0], [0], [0], [0]] });
    for (let p = 0; p < 4; p++) steadyLoad(c, `load-${p}`, 'hot', p, 2048 * KiB);
    const b = c.balancer!;
    expect(b.controllers).toHaveLength(3);
    const first = c.activeController()!;
    c.runUntil(() => b.history.some((r) => r.moves.length > 0), { timeout: '200s' });
    // Every detect so far ran on the active controller; standbys ran none.
    expect(new Set(b.history.map((r) => r.controller))).toEqual(new Set([first.id]));
    const detectsBefore = b.history.length;
    first.crash();
    c.runUntil(() => c.activeController() !== undefined, { timeout: '30s' });
    const second = c.activeController()!;
    expect(second).not.toBe(first);
    expect(b.controller).toBe(second);
    // The new active controller starts from an empty model and detects on its own loop.
    c.runUntil(() => b.history.length > detectsBefore, { timeout: '30s' });
    const next = b.history[detectsBefore]!;
    expect(next.controller).toBe(second.id);
    expect(next.skipped).toBeUndefined();
    expect(b.state).toBeDefined();
    // Its model fills again from the reporters, who find it through NOT_CONTROLLER: loads come back.
    c.runFor('90s');
    const later = b.history.filter((r) => r.controller === second.id).at(-1)!;
    expect(later.brokers.some((s) => !s.outOfDate && s.bytesIn > 0)).toBe(true);
    // The old controller came back as a standby: the balancer does not move there.
    first.start();
    c.runFor('60s');
    expect(b.controller).toBe(second);
    expect(b.history.slice(detectsBefore).every((r) => r.controller === second.id)).toBe(true);
  });
});
