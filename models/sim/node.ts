// A simulated node (a broker, a controller, a client...). The kernel gives models the lifecycle and the hooks;
// models decide what "persisted" means. Volatile state lives in the model's fields and is rebuilt in onStart();
// what must survive a crash goes in `disk`. While a node is down it receives nothing, and its timers, pending
// request callbacks and state machines from before the crash never run again.
import { type Actor, type ActorOptions, type AnyActorLogic, createActor } from 'xstate';
import type { Timer } from './event-queue.ts';
import type { NodeId, RequestOutcome } from './network.ts';
import type { RandomStream } from './rng.ts';
import type { Simulation } from './simulation.ts';
import { simClock } from './xstate-clock.ts';

export type NodeStatus = 'new' | 'up' | 'crashed' | 'stopped';

/** A periodic timer bound to a node; cancel() stops it. */
export interface Periodic {
  cancel(): void;
}

export abstract class SimNode {
  status: NodeStatus = 'new';
  /** Bumped at every start; events from an earlier incarnation are ignored. */
  incarnation = 0;
  /** What survives a crash. Models write here what their real counterpart would fsync. */
  readonly disk = new Map<string, unknown>();
  private actors: Actor<AnyActorLogic>[] = [];

  constructor(
    readonly sim: Simulation,
    readonly id: NodeId,
  ) {
    sim.network.register(this);
  }

  get up(): boolean {
    return this.status === 'up';
  }

  /** Starts (or restarts after a crash or stop) the node. */
  start(): void {
    if (this.up) throw new Error(`node ${this.id} is already up`);
    this.status = 'up';
    this.incarnation++;
    this.sim.trace.emit('node.start', this.id, { incarnation: this.incarnation });
    this.onStart();
  }

  /** Crashes the node: volatile state is gone, only `disk` survives. */
  crash(): void {
    if (!this.up) return;
    this.status = 'crashed';
    this.stopActors();
    this.sim.network.nodeDown(this.id);
    this.sim.trace.emit('node.crash', this.id);
    this.onCrash();
  }

  /** Stops the node gracefully: onStop() runs first (while the node is still up), then the node goes down. */
  stop(): void {
    if (!this.up) return;
    this.onStop();
    this.status = 'stopped';
    this.stopActors();
    this.sim.network.nodeDown(this.id);
    this.sim.trace.emit('node.stop', this.id);
  }

  /** Crash (if up) and start again. */
  restart(): void {
    this.crash();
    this.start();
  }

  protected onStart(): void {}
  protected onCrash(): void {}
  protected onStop(): void {}
  /** A one-way message arrived. */
  protected onMessage(_from: NodeId, _payload: unknown): void {}
  /** A request arrived; call `reply` once, now or later. */
  protected onRequest(
    _from: NodeId,
    _payload: unknown,
    _reply: (response: unknown, sendDelayMs?: number) => void,
  ): void {}

  deliver(from: NodeId, payload: unknown): void {
    this.onMessage(from, payload);
  }

  serve(from: NodeId, payload: unknown, reply: (response: unknown, sendDelayMs?: number) => void): void {
    this.onRequest(from, payload, reply);
  }

  /** A timer that runs only if this node is still in the same incarnation. */
  schedule(delay: number, fn: () => void, label?: string): Timer {
    const incarnation = this.incarnation;
    return this.sim.schedule(
      delay,
      () => {
        if (this.status === 'up' && this.incarnation === incarnation) fn();
      },
      label,
      this.id,
    );
  }

  /** Runs `fn` every `intervalMs` (first after `firstDelay`, default one interval) while this incarnation lives. */
  every(intervalMs: number, fn: () => void, label?: string, firstDelay = intervalMs): Periodic {
    if (!(intervalMs > 0)) throw new RangeError(`every: interval must be > 0, got ${intervalMs}`);
    const incarnation = this.incarnation;
    // One closure for the whole life of the task (not one per tick), still scheduled through sim.schedule.
    const tick = () => {
      if (this.status !== 'up' || this.incarnation !== incarnation) return;
      timer = this.sim.schedule(intervalMs, tick, label, this.id);
      fn();
    };
    let timer = this.sim.schedule(firstDelay, tick, label, this.id);
    return { cancel: () => timer.cancel() };
  }

  sendMessage(to: NodeId, payload: unknown): boolean {
    return this.sim.network.send(this.id, to, payload);
  }

  request<R = unknown>(
    to: NodeId,
    payload: unknown,
    callback: (outcome: RequestOutcome<R>) => void,
    timeoutMs?: number,
  ): void {
    this.sim.network.request<R>(this.id, to, payload, callback, timeoutMs);
  }

  /** This node's own named random stream (`<id>/<name>`). */
  random(name: string): RandomStream {
    // Models ask for their stream where they draw; a map by the short name spares building the full one each time.
    let s = this.streams.get(name);
    if (s === undefined) {
      s = this.sim.rng.stream(`${this.id}/${name}`);
      this.streams.set(name, s);
    }
    return s;
  }

  private readonly streams = new Map<string, RandomStream>();

  /** Emits a trace event from this node. */
  emit(kind: string, fields?: Record<string, unknown>): void {
    this.sim.trace.emit(kind, this.id, fields);
  }

  /** Starts an xstate actor on the simulation's clock; it is stopped when this node crashes or stops. */
  spawn<L extends AnyActorLogic>(logic: L, options?: ActorOptions<L>): Actor<L> {
    const actor = createActor(logic, { ...options, clock: simClock(this.sim) } as ActorOptions<L>);
    this.actors.push(actor as unknown as Actor<AnyActorLogic>);
    actor.start();
    return actor;
  }

  private stopActors(): void {
    const actors = this.actors;
    this.actors = [];
    for (const a of actors) a.stop();
  }
}
