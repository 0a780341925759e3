/**
 * The hand-over of a moved shared-storage (AutoMQ) partition between its old and new owner, on the active
 * controller: the old leader closes the partition's streams (CloseStreams) and asks for the election; the new owner's
 * OpenStreams is answered once the old one is done. A move whose ElectLeaders never comes is elected after
 * `kafkasim.shared.reelect.timeout.ms`, as AutoMQ's ReplicationControlManager.addPartitionToReElectTimeouts does
 * (AutoMQ/automq, metadata/src/main/java/org/apache/kafka/controller/). Soft state of the active controller.
 */

import type { CloseStreamsRequest, OpenStreamsRequest } from '../protocol/index.ts';
import type { Timer } from '../sim/index.ts';
import {
  type ControllerHost,
  errorResult,
  NO_ERROR,
  type PendingElection,
  partitionKey,
} from './control-context.ts';
import { electPending } from './leadership.ts';

interface Waiting {
  readonly wait: PendingElection;
  readonly timer: Timer;
}

export class StreamHandover {
  readonly #host: ControllerHost;
  /** Moves waiting for the old leader's ElectLeaders, by partition key. */
  readonly #pending = new Map<string, Waiting>();
  /** OpenStreams answers waiting for the previous owner to close the partition, by partition key. */
  readonly #parkedOpens = new Map<string, ((response: unknown) => void)[]>();

  constructor(host: ControllerHost) {
    this.#host = host;
  }

  /** The moves waiting for the old leader's ElectLeaders. */
  get pending(): PendingElection[] {
    return [...this.#pending.values()].map((w) => w.wait);
  }

  /** The same moves by partition key. */
  pendingByKey(): Map<string, PendingElection> {
    return new Map([...this.#pending].map(([k, w]) => [k, w.wait]));
  }

  pendingKeys(): Set<string> {
    return new Set(this.#pending.keys());
  }

  /** A move started: its election is due from the old leader, or from the timer. */
  awaitElection(wait: PendingElection): void {
    const host = this.#host;
    const key = partitionKey(wait.topicId, wait.partition);
    this.settle(key);
    const timer = host.schedule(
      host.config['kafkasim.shared.reelect.timeout.ms'],
      () => {
        if (this.#pending.get(key)?.wait !== wait) return;
        host.commit(electPending(host.context(), [wait], 'reelect-timeout'), undefined);
        this.#pending.delete(key);
      },
      'controller.reelect-timeout',
    );
    this.#pending.set(key, { wait, timer });
  }

  /** The move of partition `key` is over (elected, moved again, deleted, or its old owner closed it). */
  settle(key: string): void {
    const w = this.#pending.get(key);
    if (w) {
      w.timer.cancel();
      this.#pending.delete(key);
    }
    // The previous owner is done (closed, fenced, or given up on): the new owner may open the streams.
    const opens = this.#parkedOpens.get(key);
    if (!opens) return;
    this.#parkedOpens.delete(key);
    for (const reply of opens) reply({ ...NO_ERROR });
  }

  /**
   * AutoMQ's stream hand-over for a moved shared-storage partition: CloseStreams from the previous owner once it
   * has closed it; OpenStreams from the new owner, answered when the previous owner is done (at once when no
   * close is pending). The election then comes from the new owner, after it has opened the partition.
   */
  onStreams(req: CloseStreamsRequest | OpenStreamsRequest, reply: (response: unknown) => void): void {
    const topic = this.#host.latestImage.topics[req.topic];
    if (!topic) {
      reply(errorResult('UNKNOWN_TOPIC_OR_PARTITION', `No such topic as ${req.topic}`));
      return;
    }
    const key = partitionKey(topic.topicId, req.partition);
    if (req.type === 'CloseStreams') {
      this.#host.emit('controller.streams-closed', { topic: req.topic, partition: req.partition });
      this.settle(key);
      reply({ ...NO_ERROR });
      return;
    }
    if (!this.#pending.has(key)) {
      reply({ ...NO_ERROR });
      return;
    }
    const waiting = this.#parkedOpens.get(key);
    if (waiting) waiting.push(reply);
    else this.#parkedOpens.set(key, [reply]);
  }

  /** The node stops being active: the moves are forgotten, and the new owners ask the next active controller. */
  drop(answer: () => unknown): void {
    for (const w of this.#pending.values()) w.timer.cancel();
    this.#pending.clear();
    const parked = [...this.#parkedOpens.values()].flat();
    this.#parkedOpens.clear();
    for (const reply of parked) reply(answer());
  }
}
