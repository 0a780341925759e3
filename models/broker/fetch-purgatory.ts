// Fetches waiting for data (Kafka's DelayedFetch in the fetch purgatory): a fetch that cannot answer at once
// parks on each of its partitions until fetch.min.bytes are readable, an error shows up, or fetch.max.wait.ms
// passes. A partition's appends and high-watermark moves wake the fetches parked on it, oldest first.

import type { FetchRequest, FetchResponse } from '../protocol/index.ts';
import { type DelayedEntry, DelayLanes, type Lane, type Timer } from '../sim/index.ts';
import type { BrokerCore } from './broker-core.ts';
import type { LogReader } from './read-from-log.ts';
import type { ReplicaManager } from './replica-manager.ts';

type FetchReply = (response: FetchResponse, sendDelayMs?: number) => void;

/** One parked fetch. `done` keeps a fetch woken twice in one event from answering twice. */
class ParkedFetch implements DelayedEntry {
  time = 0;
  seq = 0;
  queued = false;
  lane: Lane<DelayedEntry> | undefined = undefined;
  timer: Timer | undefined = undefined;
  done = false;
  constructor(
    readonly req: FetchRequest,
    readonly keys: readonly string[],
    readonly reply: FetchReply,
    /** The broker's node and incarnation: the wait's event belongs to it, and acts only in that incarnation. */
    readonly node: string,
    readonly incarnation: number,
  ) {}
}

/** Removes `item` keeping the order (splice would allocate the removed list on the fetch path). */
function removeFrom<T>(list: T[], item: T): void {
  const i = list.indexOf(item);
  if (i < 0) return;
  for (let j = i + 1; j < list.length; j++) list[j - 1] = list[j]!;
  list.pop();
}

export class FetchPurgatory {
  /** Parked fetches per partition key, in the order they parked (wakes answer them in that order). */
  private parked = new Map<string, ParkedFetch[]>();
  /** Max waits, one lane per length (DelayLanes). */
  private readonly waits: DelayLanes<ParkedFetch>;

  constructor(
    private readonly core: BrokerCore,
    private readonly replicaManager: ReplicaManager,
    private readonly reader: LogReader,
    /** Sends an answer (its bytes queue on network-out). */
    private readonly send: (res: FetchResponse, reply: FetchReply) => void,
  ) {
    this.waits = new DelayLanes(
      core.sim,
      (parked) => {
        if (core.up && core.incarnation === parked.incarnation) this.complete(parked, true);
      },
      'broker.fetch-wait',
    );
  }

  reset(): void {
    this.parked = new Map();
  }

  /** Parks a fetch that could not answer at once until data arrives or its max wait passes. */
  park(req: FetchRequest, reply: FetchReply): void {
    const parts = req.partitions;
    const keys = new Array<string>(parts.length);
    const image = this.core.image;
    for (let i = 0; i < parts.length; i++) {
      const t = image.topics[parts[i]!.topic];
      keys[i] = t ? this.replicaManager.replicaKey(t.topicId, parts[i]!.partition) : '';
    }
    const parked = new ParkedFetch(req, keys, reply, this.core.id, this.core.incarnation);
    this.waits.add(req.maxWaitMs, parked);
    for (let i = 0; i < keys.length; i++) {
      let list = this.parked.get(keys[i]!);
      if (!list) this.parked.set(keys[i]!, (list = []));
      if (!list.includes(parked)) list.push(parked);
    }
    // Followers' fetches are answered when data arrives even if min bytes is not reached yet.
  }

  /** Wakes parked fetches (consumers and followers) waiting on a partition, oldest first. */
  wake(key: string): void {
    const list = this.parked.get(key);
    if (!list || list.length === 0) return;
    if (list.length === 1) return this.complete(list[0]!, false);
    for (const p of list.slice()) this.complete(p, false);
  }

  private complete(parked: ParkedFetch, final: boolean): void {
    if (parked.done) return;
    const res = this.reader.tryFetch(parked.req, final);
    // A follower's read can advance the high watermark and wake this very fetch (answered there already).
    if (!res || parked.done) return;
    parked.done = true;
    this.waits.withdraw(parked);
    const keys = parked.keys;
    for (let k = 0; k < keys.length; k++) {
      const list = this.parked.get(keys[k]!);
      if (list) removeFrom(list, parked);
    }
    this.send(res, parked.reply);
  }
}
