// The balancer acts only on the active controller: a controller that has not caught up with its metadata log
// (not serving yet) skips every detect, then balances once it is active.
import { describe, expect, it } from 'vitest';
import { AutoBalancer } from '../../../models/balancer/index.ts';
import { QuorumController } from '../../../models/controller/index.ts';
import { LocalMetadataLog } from '../../../models/metadata/index.ts';
import { Simulation } from '../../../models/sim/index.ts';
import { workflowA } from './workflow-a.ts';

describe('AutoBalancer on a controller that is not active', () => {
  it('skips detects until the controller serves, and resumes on its own clock', () => {
    const sim = new Simulation({ seed: 1 });
    // A record appended before the start commits only at 150 s: until then the controller is catching up.
    const log = new LocalMetadataLog({ scheduler: sim, commitDelayMs: 150_000 });
    log.append([{ type: 'NoOpRecord' }]);
    const controller = new QuorumController(sim, 'controller-1', { storageMode: 'shared', metadataLog: log });
    const balancer = new AutoBalancer(controller);
    const lifecycle: string[] = [];
    controller.onLifecycle((e) => lifecycle.push(`${e}@${sim.now}`));
    controller.start();
    sim.runFor('130s');
    expect(controller.isActive).toBe(false);
    expect(balancer.history.map((r) => [r.time, r.skipped])).toEqual([
      [60_000, 'not the active controller'],
      [120_000, 'not the active controller'],
    ]);
    sim.runFor('60s');
    expect(controller.isActive).toBe(true);
    expect(lifecycle).toEqual(['start@0', 'active@150000']);
    expect(balancer.history[2]).toMatchObject({ time: 180_000, moves: [] });
    expect(balancer.history[2]!.skipped).toBeUndefined();
    // A crash drops everything: the balancer starts over with the next start.
    controller.crash();
    expect(lifecycle.at(-1)).toBe('inactive@190000');
    expect(balancer.state).toBeUndefined();
    controller.start();
    expect(balancer.state).toBe('waiting');
  });
});

describe('AutoBalancer.executedMoves', () => {
  it('counts the batches of the detect still executing, and moves older than the bounded history', () => {
    const w = workflowA('A2', { consumer: false, numRecords: 200_000 });
    const c = w.cluster;
    const balancer = c.balancer!;
    let executed = 0;
    c.sim.trace.subscribe((e) => {
      if (e.kind === 'balancer.executed') executed++;
    });
    c.runUntil(() => executed > 0, { timeout: '180s', description: 'the first executed batch' });
    // A2 needs several batches 5 s apart: the detect that planned them has not finished, so no report with
    // moves is in the history yet, but the partitions of its first batch have moved.
    expect(balancer.history.every((r) => r.moves.length === 0)).toBe(true);
    const early = balancer.executedMoves().length;
    expect(early).toBeGreaterThan(0);
    c.runUntil(() => balancer.history.some((r) => r.moves.length > 0), {
      timeout: '120s',
      description: 'the detect finished',
    });
    const all = balancer.executedMoves();
    expect(all.length).toBeGreaterThan(early);
    expect(all).toEqual(balancer.history.flatMap((r) => r.batches.flatMap((b) => b.moves)));
    // Two hours later the history (100 detects) no longer holds that detect; the moves still count.
    c.runFor('2h');
    expect(balancer.history).toHaveLength(100);
    expect(balancer.history.some((r) => r.moves.length > 0)).toBe(false);
    expect(balancer.executedMoves()).toEqual(all);
  });
});
