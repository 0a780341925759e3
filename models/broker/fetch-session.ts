// Incremental fetch sessions on the leader (KIP-227; Kafka's FetchSession, FetchSessionCache and
// FetchContext). A fetcher's first request is full (session id 0, epoch 0): the leader caches the partitions it
// asked for under a new random session id. Later requests carry (id, epoch) and only the partitions whose fetch
// state changed, plus those to forget; the response carries only partitions with something to say (records, a
// moved high watermark or log start offset, an error). A partition that returns records moves to the end of the
// session, so that a size-limited response serves every partition in turn. An unknown id answers
// FETCH_SESSION_ID_NOT_FOUND and a wrong epoch INVALID_FETCH_SESSION_EPOCH; the fetcher then sends a full
// request again. The cache has max.incremental.fetch.session.cache.slots; a new session evicts one unused for
// min.incremental.fetch.session.eviction.ms, or (for a follower) a consumer's, or (for a consumer) a consumer
// session with fewer partitions; otherwise it is not cached (response session id 0).
//
// What also makes it cheap here: the leader reads only the partitions marked since the last answer (appends, high
// watermark moves and metadata changes mark them in every session that holds them), so an idle partition costs
// nothing per fetch. A follower caught up on an idle partition is caught up as of the session's last fetch:
// that is kept on the session and folded into the follower's state when the partition changes (FollowerState).

import {
  Errors,
  type FetchPartitionResponse,
  type FetchRequest,
  type FetchResponse,
  FINAL_EPOCH,
  INITIAL_EPOCH,
  INVALID_SESSION_ID,
  nextEpoch,
} from '../protocol/index.ts';
import { type DelayedEntry, DelayLanes, type Lane, type Timer } from '../sim/index.ts';
import type { BrokerCore } from './broker-core.ts';
import { foldIdle, type PartitionReplica } from './partition-replica.ts';
import { batchBytes, type LogReader } from './read-from-log.ts';
import type { ReplicaManager } from './replica-manager.ts';

// Kafka's FetchMetadata constants, shared with the clients' side (models/protocol).
export { FINAL_EPOCH, INITIAL_EPOCH, INVALID_SESSION_ID, nextEpoch } from '../protocol/index.ts';

type FetchReply = (response: FetchResponse, sendDelayMs?: number) => void;

/** One partition of a session, with what the fetcher last asked and what it was last told. */
export class CachedPartition {
  /** Position in the session (a partition that returns records moves to the end). */
  order = 0;
  fetchOffset = 0;
  lastFetchedEpoch: number | undefined = undefined;
  currentLeaderEpoch: number | undefined = undefined;
  maxBytes = 0;
  lastHighWatermark = -1;
  lastLogStartOffset = -1;
  /** Must be read at the next fetch of the session (changed since the last answer, or not settled). */
  pending = true;
  /** The replica key it is registered under for change marks ('' until resolved). */
  key = '';

  constructor(
    readonly session: FetchSession,
    readonly topic: string,
    readonly partition: number,
  ) {}
}

/** A session fetch waiting for news or its max wait (on the cache's lanes of fetch-wait timers). */
class ParkedSessionFetch implements DelayedEntry {
  time = 0;
  seq = 0;
  queued = false;
  lane: Lane<DelayedEntry> | undefined = undefined;
  timer: Timer | undefined = undefined;
  done = false;
  constructor(
    readonly req: FetchRequest,
    readonly full: boolean,
    readonly reply: FetchReply,
    readonly session: FetchSession,
    /** The broker's node and incarnation: the wait's event belongs to it, and acts only in that incarnation. */
    readonly node: string,
    readonly incarnation: number,
  ) {}
}

export class FetchSession {
  /** The epoch the next request must carry. */
  epoch = 1;
  lastUsedMs: number;
  /** When the session's fetcher last fetched (a caught-up idle partition is caught up as of then). */
  lastFetchMs: number;
  readonly partitions = new Map<string, CachedPartition>();
  pendingList: CachedPartition[] = [];
  parked: ParkedSessionFetch | undefined;
  /** Set while the session is being read: marks then only flag partitions, they do not re-enter. */
  busy = false;
  nextOrder = 0;

  constructor(
    readonly id: number,
    readonly replicaId: number,
    now: number,
  ) {
    this.lastUsedMs = now;
    this.lastFetchMs = now;
  }

  get privileged(): boolean {
    return this.replicaId >= 0;
  }
}

function bySessionOrder(a: CachedPartition, b: CachedPartition): number {
  return a.order - b.order;
}

function tpName(topic: string, partition: number): string {
  return `${topic}\u0000${partition}`;
}

export class FetchSessionCache {
  private sessions = new Map<number, FetchSession>();
  /** Cached partitions by replica key, for change marks. */
  private byKey = new Map<string, Set<CachedPartition>>();
  /** Parked fetches' max waits (answered empty when nothing came); one lane per max wait length. */
  private readonly waits: DelayLanes<ParkedSessionFetch>;

  constructor(
    private readonly core: BrokerCore,
    private readonly replicaManager: ReplicaManager,
    private readonly reader: LogReader,
    private readonly send: (res: FetchResponse, reply: FetchReply) => void,
    private readonly randomId: () => number,
  ) {
    this.waits = new DelayLanes(
      core.sim,
      (parked) => {
        if (core.up && core.incarnation === parked.incarnation) this.tryParked(parked, parked.session, true);
      },
      'broker.fetch-wait',
    );
  }

  /** At every start: the cache is memory only. */
  reset(): void {
    this.sessions = new Map();
    this.byKey = new Map();
  }

  get size(): number {
    return this.sessions.size;
  }

  /** A fetch that names a session (KIP-227's request metadata table). */
  handle(req: FetchRequest, reply: FetchReply): void {
    const id = req.sessionId ?? INVALID_SESSION_ID;
    const epoch = req.sessionEpoch ?? FINAL_EPOCH;
    const now = this.core.sim.now;
    if (epoch === FINAL_EPOCH || epoch === INITIAL_EPOCH) {
      if (id !== INVALID_SESSION_ID) this.remove(id);
      // A full fetch: a new session if the cache takes one (FINAL_EPOCH asks for none).
      const session = new FetchSession(
        epoch === INITIAL_EPOCH ? this.newId() : INVALID_SESSION_ID,
        req.replicaId,
        now,
      );
      for (const p of req.partitions) this.put(session, p);
      if (session.id !== INVALID_SESSION_ID && this.admit(session, now)) {
        this.sessions.set(session.id, session);
        this.register(session);
      } else {
        (session as { id: number }).id = INVALID_SESSION_ID;
      }
      return this.serve(session, req, true, reply);
    }
    const session = this.sessions.get(id);
    if (!session || session.replicaId !== req.replicaId)
      return reply({ errorCode: Errors.FETCH_SESSION_ID_NOT_FOUND.code, sessionId: 0, partitions: [] });
    if (session.epoch !== epoch)
      return reply({ errorCode: Errors.INVALID_FETCH_SESSION_EPOCH.code, sessionId: 0, partitions: [] });
    session.epoch = nextEpoch(epoch);
    session.lastUsedMs = now;
    for (const p of req.partitions) {
      const cp = this.put(session, p);
      this.track(cp);
    }
    if (req.forgotten) {
      for (const f of req.forgotten) {
        const name = tpName(f.topic, f.partition);
        const cp = session.partitions.get(name);
        if (!cp) continue;
        session.partitions.delete(name);
        this.untrack(cp);
        this.settle(cp, false);
        cp.pending = false;
      }
    }
    this.serve(session, req, false, reply);
  }

  /** Partition `key` changed (an append, a high watermark move, new metadata): every session holding it reads it. */
  mark(key: string, wake: boolean): void {
    const set = this.byKey.get(key);
    if (!set) return;
    for (const cp of set) {
      const s = cp.session;
      if (!cp.pending) {
        this.settle(cp, false);
        cp.pending = true;
        s.pendingList.push(cp);
      }
      if (wake && s.parked && !s.busy) this.tryParked(s.parked, s, false);
    }
  }

  // ---- sessions ----

  private newId(): number {
    for (;;) {
      const id = this.randomId();
      if (id !== INVALID_SESSION_ID && !this.sessions.has(id)) return id;
    }
  }

  /** Whether the cache has room for `session`, evicting one if the rules allow (FetchSessionCache.tryEvict). */
  private admit(session: FetchSession, now: number): boolean {
    const slots = this.core.config['max.incremental.fetch.session.cache.slots'];
    if (this.sessions.size < slots) return true;
    const staleBefore = now - this.core.config['min.incremental.fetch.session.eviction.ms'];
    let stale: FetchSession | undefined;
    let weakest: FetchSession | undefined;
    for (const s of this.sessions.values()) {
      if (s.lastUsedMs <= staleBefore && (!stale || s.lastUsedMs < stale.lastUsedMs)) stale = s;
      if (!s.privileged) {
        if (
          !weakest ||
          s.partitions.size < weakest.partitions.size ||
          (s.partitions.size === weakest.partitions.size && s.lastUsedMs < weakest.lastUsedMs)
        )
          weakest = s;
      }
    }
    const victim =
      stale ??
      (weakest && (session.privileged || weakest.partitions.size < session.partitions.size)
        ? weakest
        : undefined);
    if (!victim) return false;
    this.remove(victim.id);
    return true;
  }

  private remove(id: number): void {
    const s = this.sessions.get(id);
    if (!s) return;
    this.sessions.delete(id);
    for (const cp of s.partitions.values()) {
      this.untrack(cp);
      this.settle(cp, false);
    }
  }

  private register(session: FetchSession): void {
    for (const cp of session.partitions.values()) this.track(cp);
  }

  /** Adds or updates a session partition from a request's entry; it is read at the next try. */
  private put(session: FetchSession, p: FetchRequest['partitions'][number]): CachedPartition {
    const name = tpName(p.topic, p.partition);
    let cp = session.partitions.get(name);
    if (!cp) {
      cp = new CachedPartition(session, p.topic, p.partition);
      cp.order = session.nextOrder++;
      session.partitions.set(name, cp);
      session.pendingList.push(cp);
    } else if (!cp.pending) {
      this.settle(cp, false);
      cp.pending = true;
      session.pendingList.push(cp);
    }
    cp.fetchOffset = p.fetchOffset;
    cp.lastFetchedEpoch = p.lastFetchedEpoch;
    cp.currentLeaderEpoch = p.currentLeaderEpoch;
    cp.maxBytes = p.partitionMaxBytes;
    return cp;
  }

  private track(cp: CachedPartition): void {
    if (!cp.session.id) return;
    const t = this.core.image.topics[cp.topic];
    const key = t ? this.replicaManager.replicaKey(t.topicId, cp.partition) : '';
    if (key === cp.key) return;
    this.untrack(cp);
    cp.key = key;
    if (!key) return;
    let set = this.byKey.get(key);
    if (!set) this.byKey.set(key, (set = new Set()));
    set.add(cp);
  }

  private untrack(cp: CachedPartition): void {
    if (!cp.key) return;
    const set = this.byKey.get(cp.key);
    set?.delete(cp);
    if (set && set.size === 0) this.byKey.delete(cp.key);
    cp.key = '';
  }

  /**
   * Sets or clears the "caught up as of the session's last fetch" state of the follower behind `cp`, folding
   * the session's fetch time into the follower's state first (as if each of those fetches had been read).
   */
  private settle(cp: CachedPartition, idle: boolean): void {
    const s = cp.session;
    if (s.replicaId < 0 || !s.id) return;
    const r = this.replicaManager.findReplica(cp.topic, cp.partition);
    const f = r?.followers.get(s.replicaId);
    if (!f) return;
    if (f.idleIn === s) foldIdle(f);
    if (idle) f.idleIn = s;
  }

  // ---- serving ----

  private serve(session: FetchSession, req: FetchRequest, full: boolean, reply: FetchReply): void {
    const core = this.core;
    const parked = new ParkedSessionFetch(req, full, reply, session, core.id, core.incarnation);
    if (this.tryParked(parked, session, req.maxWaitMs <= 0)) return;
    // Not cached (no id): nothing will mark it; it waits out max wait and answers then.
    if (session.id) session.parked = parked;
    this.waits.add(req.maxWaitMs, parked);
  }

  /** Reads the session's partitions to read; answers if fetch.min.bytes are there, an error, or `final`. */
  private tryParked(parked: ParkedSessionFetch, session: FetchSession, final: boolean): boolean {
    if (parked.done) return true;
    const res = this.read(session, parked, final);
    if (!res) return false;
    this.answer(parked, session, res);
    return true;
  }

  private answer(parked: ParkedSessionFetch, session: FetchSession, res: FetchResponse): void {
    parked.done = true;
    this.waits.withdraw(parked);
    if (session.parked === parked) session.parked = undefined;
    this.send(res, parked.reply);
  }

  private read(session: FetchSession, parked: ParkedSessionFetch, final: boolean): FetchResponse | undefined {
    const req = parked.req;
    // A consumer's fetch is checked without reading until it can complete (as a sessionless one is: a read counts
    // as bytes out); a follower's is read at every try, since reading is what records its fetch position.
    if (!final && session.replicaId < 0 && !this.consumerReady(session, parked)) return undefined;
    // In session order (`order`; a partition that returned records moved to the end).
    const list = parked.full ? [...session.partitions.values()] : session.pendingList.slice();
    if (list.length > 1) list.sort(bySessionOrder);
    session.busy = true;
    const answers = new Array<FetchPartitionResponse>(list.length);
    let bytes = 0;
    let hasError = false;
    try {
      for (let i = 0; i < list.length; i++) {
        const cp = list[i]!;
        if (!cp.pending && !parked.full) continue;
        const pr = this.reader.readPartition(
          req.replicaId,
          cp.topic,
          cp.partition,
          cp.fetchOffset,
          cp.lastFetchedEpoch,
          cp.currentLeaderEpoch,
          cp.maxBytes,
        );
        if (pr.errorCode !== 0 || pr.divergingEpoch) hasError = true;
        bytes += batchBytes(pr.batches);
        answers[i] = pr;
      }
    } finally {
      session.busy = false;
    }
    // The partitions not read are caught up as of this fetch (a fetch's tries all count, as a read would).
    session.lastFetchMs = this.core.sim.now;
    if (!final && !hasError && bytes < req.minBytes) return undefined;
    // Answering: what is sent is what the fetcher now knows; settled partitions leave the list to read.
    const out: FetchPartitionResponse[] = [];
    for (let i = 0; i < list.length; i++) {
      const cp = list[i]!;
      const pr = answers[i];
      if (!pr) continue;
      const changed =
        parked.full ||
        pr.batches.length > 0 ||
        pr.errorCode !== 0 ||
        pr.divergingEpoch !== undefined ||
        pr.highWatermark !== cp.lastHighWatermark ||
        pr.logStartOffset !== cp.lastLogStartOffset;
      cp.lastHighWatermark = pr.highWatermark;
      cp.lastLogStartOffset = pr.logStartOffset;
      if (changed) out.push(pr);
      // Kafka's IncrementalFetchContext: a partition that returned records goes to the end of the session (its
      // `order`, which every read sorts by; the map keeps the order partitions joined in).
      if (pr.batches.length > 0 && session.id) cp.order = session.nextOrder++;
      // The key may not have been known when the partition joined (the topic was not in this broker's image yet).
      this.track(cp);
      cp.pending = !cp.key || !this.settled(session, cp, pr);
      if (!cp.pending) this.settle(cp, true);
    }
    // Partitions still to read: those not settled, and those marked while this read ran.
    const keep: CachedPartition[] = [];
    for (const cp of parked.full ? list : session.pendingList) if (cp.pending) keep.push(cp);
    session.pendingList = keep;
    return { partitions: out, sessionId: session.id, errorCode: 0 };
  }

  /** Whether a consumer's session fetch would answer now: fetch.min.bytes readable, or an error to answer. */
  private consumerReady(session: FetchSession, parked: ParkedSessionFetch): boolean {
    const minBytes = parked.req.minBytes;
    let bytes = 0;
    for (const cp of parked.full ? session.partitions.values() : session.pendingList) {
      if (!cp.pending && !parked.full) continue;
      bytes += this.reader.consumerReadable(
        cp.topic,
        cp.partition,
        cp.fetchOffset,
        cp.currentLeaderEpoch,
        cp.maxBytes,
      );
      if (bytes >= minBytes) return true;
    }
    return bytes >= minBytes;
  }

  /**
   * Whether a partition needs no reading until it changes: no error, and for a follower caught up to the log
   * end and in the ISR (an out-of-sync follower is read every time, so that its ISR expansion is tried as
   * PartitionReplica.onFollowerFetch does).
   */
  private settled(session: FetchSession, cp: CachedPartition, pr: FetchPartitionResponse): boolean {
    if (pr.errorCode !== 0 || pr.divergingEpoch) return false;
    const r: PartitionReplica | undefined = this.replicaManager.findReplica(cp.topic, cp.partition);
    if (!r || r.role !== 'leader') return false;
    if (session.replicaId < 0) return cp.fetchOffset >= r.log.highWatermark;
    return (
      cp.fetchOffset >= r.log.logEndOffset &&
      r.isr.includes(session.replicaId) &&
      r.pendingIsr === undefined &&
      r.log.highWatermark === cp.lastHighWatermark
    );
  }
}
