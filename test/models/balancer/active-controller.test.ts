// The balancer acts only on the active controller: a controller that has not caught up with its metadata log
// (not serving yet) skips every detect, then balances once it is active.
import { describe, expect, it } from 'vitest';
import { AutoBalancer } from '../../../models/balancer/index.ts';
import { QuorumController } from '../../../models/controller/index.ts';
import { LocalMetadataLog } from '../../../models/metadata/index.ts';
import { Simulation } from '../../../src/sim/index.ts';

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
