// A group member's rebalance callbacks (Java's ConsumerRebalanceListener, librdkafka's rebalance_cb) and the holds
// a callback may put on the application thread: a member does not rejoin, or hand out records after an assign,
// until every hold is released (e.g. a sink flushed and committed first).

import type { GroupConsumer } from './group-consumer.ts';
import type { TopicPartitionRef } from './topic-partition-key.ts';
import { keyOf } from './topic-partition-key.ts';

/** What a rebalance listener may do besides looking at the partitions. */
export interface RebalanceControl {
  readonly consumer: GroupConsumer;
  /**
   * Holds the rebalance on the application thread (the rejoin after a revoke, handing out records after an
   * assign) until the returned function is called, e.g. once a sink has flushed and committed.
   */
  hold(): () => void;
}

/** ConsumerRebalanceListener; librdkafka's rebalance_cb maps onto the same three moments. */
export interface RebalanceListener {
  onPartitionsRevoked?(partitions: readonly TopicPartitionRef[], ctl: RebalanceControl): void;
  onPartitionsAssigned?(partitions: readonly TopicPartitionRef[], ctl: RebalanceControl): void;
  /** The member lost its membership (fenced, left by poll timeout) before it could revoke. */
  onPartitionsLost?(partitions: readonly TopicPartitionRef[], ctl: RebalanceControl): void;
}

export type RebalanceHook = 'onPartitionsRevoked' | 'onPartitionsAssigned' | 'onPartitionsLost';

/** What the callbacks need from their member. */
export interface RebalanceCallbacksHost {
  readonly consumer: GroupConsumer;
  trace(kind: string, fields: Record<string, unknown>): void;
  /** The last hold was released: the member's deferred work (rejoin, handing out records) may run. */
  onReleased(): void;
}

/** The listeners of one member, and the holds they put on its application thread. */
export class RebalanceCallbacks {
  private readonly listeners: RebalanceListener[] = [];
  private holds = 0;
  private afterHolds: (() => void)[] = [];

  constructor(private readonly host: RebalanceCallbacksHost) {}

  /** A restart: nothing is held any more (the listeners stay). */
  reset(): void {
    this.holds = 0;
    this.afterHolds = [];
  }

  add(l: RebalanceListener): void {
    this.listeners.push(l);
  }

  /** How many listeners the application registered. */
  get size(): number {
    return this.listeners.length;
  }

  /** Whether a listener holds the application thread now. */
  get held(): boolean {
    return this.holds > 0;
  }

  call(hook: RebalanceHook, partitions: readonly TopicPartitionRef[]): void {
    this.host.trace(`member.${hook}`, { partitions: partitions.map(keyOf) });
    const ctl: RebalanceControl = { consumer: this.host.consumer, hold: () => this.hold() };
    for (const l of this.listeners) {
      const fn = l[hook];
      if (fn) fn.call(l, partitions, ctl);
    }
  }

  /** Runs `fn` now if nothing is held, else once the last hold is released. */
  whenReleased(fn: () => void): void {
    if (this.holds === 0) fn();
    else this.afterHolds.push(fn);
  }

  private hold(): () => void {
    this.holds++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.holds--;
      if (this.holds === 0) {
        const next = this.afterHolds;
        this.afterHolds = [];
        for (const fn of next) fn();
        this.host.onReleased();
      }
    };
  }
}
