import { describe, expect, it } from 'vitest';
import { assign, createMachine, setup } from 'xstate';
import { createSimActor, SimNode, Simulation } from '../../../models/sim/index.ts';

// A session-like lifecycle: a heartbeat resets the session timeout; without one it expires after 10 s.
const session = setup({
  types: { context: {} as { heartbeats: number }, events: {} as { type: 'heartbeat' } },
}).createMachine({
  id: 'session',
  initial: 'active',
  context: { heartbeats: 0 },
  states: {
    active: {
      after: { 10000: 'expired' },
      on: {
        heartbeat: {
          target: 'active',
          reenter: true,
          actions: assign({ heartbeats: ({ context }) => context.heartbeats + 1 }),
        },
      },
    },
    expired: { after: { 3600000: 'removed' } },
    removed: { type: 'final' },
  },
});

class Member extends SimNode {}

describe('xstate on the kernel clock', () => {
  it("a machine's `after` delays advance only with virtual time", () => {
    const sim = new Simulation();
    const node = new Member(sim, 'member-1');
    node.start();
    const actor = node.spawn(session);
    expect(actor.getSnapshot().value).toBe('active');
    expect(sim.pendingEvents).toBe(1);
    sim.runFor(9_999);
    expect(actor.getSnapshot().value).toBe('active');
    sim.runFor(1);
    expect(actor.getSnapshot().value).toBe('expired');
    expect(sim.now).toBe(10_000);
    // An hour of virtual time takes no wall time (the test would time out otherwise).
    sim.runFor('1h');
    expect(actor.getSnapshot().value).toBe('removed');
    expect(actor.getSnapshot().status).toBe('done');
  });

  it('re-entering a state cancels its old delay and starts a new one', () => {
    const sim = new Simulation();
    const node = new Member(sim, 'member-1');
    node.start();
    const actor = node.spawn(session);
    sim.runFor('6s');
    actor.send({ type: 'heartbeat' });
    expect(sim.pendingEvents).toBe(1);
    sim.runFor('6s');
    expect(actor.getSnapshot().value).toBe('active');
    sim.runFor('4s');
    expect(actor.getSnapshot().value).toBe('expired');
    expect(sim.now).toBe(16_000);
  });

  it("a machine's timers are cancelled when its node crashes, and it never moves again", () => {
    const sim = new Simulation();
    const node = new Member(sim, 'member-1');
    node.start();
    const actor = node.spawn(session);
    const seen: string[] = [];
    actor.subscribe((s) => seen.push(String(s.value)));
    sim.runFor('5s');
    node.crash();
    expect(sim.pendingEvents).toBe(0);
    expect(actor.getSnapshot().status).toBe('stopped');
    sim.runFor('2h');
    expect(actor.getSnapshot().value).toBe('active');
    expect(seen).not.toContain('expired');
    // After a restart, a new machine runs on the same clock.
    node.start();
    const fresh = node.spawn(session);
    sim.runFor('10s');
    expect(fresh.getSnapshot().value).toBe('expired');
  });

  it('a graceful stop also stops the machines', () => {
    const sim = new Simulation();
    const node = new Member(sim, 'member-1');
    node.start();
    const actor = node.spawn(session);
    node.stop();
    expect(actor.getSnapshot().status).toBe('stopped');
    expect(sim.pendingEvents).toBe(0);
  });

  it('createSimActor runs a machine on the clock without a node', () => {
    const sim = new Simulation();
    const light = createMachine({
      initial: 'green',
      states: { green: { after: { 500: 'yellow' } }, yellow: { after: { 100: 'red' } }, red: {} },
    });
    const actor = createSimActor(sim, light);
    actor.start();
    sim.runFor(500);
    expect(actor.getSnapshot().value).toBe('yellow');
    sim.runFor(99);
    expect(actor.getSnapshot().value).toBe('yellow');
    sim.runFor(1);
    expect(actor.getSnapshot().value).toBe('red');
  });
});
