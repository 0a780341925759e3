// The follower side of replication (Kafka's ReplicaFetcherThread over AbstractFetcherThread): one fetch loop per
// leader broker, covering every partition this broker follows from that leader, in an incremental fetch session
// (KIP-227; Kafka's FetchSessionHandler): the first fetch is full and opens a session, later ones name only the
// partitions whose fetch position changed (and those to forget), and the leader answers only partitions with
// news. A session error, or a lost request, starts over with a full fetch. The answers append to the follower's
// log and carry the leader's high watermark and log start; a diverging epoch (KIP-320) truncates the log first, and
// a log end below the leader's log start (retention deleted it there) starts the log again at that start.
// A fetch builds its request from the partitions whose fetch state may have changed since the last one (appended
// to or truncated by an answer, newly followed, no longer followed, back from a back-off), not from every
// partition followed: an idle partition costs nothing per fetch. A full fetch (a new session) lists them all.
// follower.replication.throttled.rate paces the loop. A partition the leader answers with an error sits out of the
// fetches for replica.fetch.backoff.ms (AbstractFetcherThread.delayPartitions), so that a follower whose leader
// does not (yet) lead the partition does not ask again at every round trip.

import {
  brokerNodeId,
  Errors,
  type FetchPartition,
  type FetchRequest,
  type FetchResponse,
} from '../protocol/index.ts';
import type { Timer } from '../sim/index.ts';
import type { BrokerCore } from './broker-core.ts';
import { INITIAL_EPOCH, INVALID_SESSION_ID, nextEpoch } from './fetch-session.ts';
import type { PartitionReplica } from './partition-replica.ts';
import type { ReplicaManager } from './replica-manager.ts';

/** A followed partition and the fetch state the leader's session last got for it. */
interface Followed {
  replica: PartitionReplica;
  /** Its position in the loop's partitions (the order requests list them in). */
  seq: number;
  /** In the loop's list of partitions to look at in the next fetch. */
  queued: boolean;
  sent: boolean;
  fetchOffset: number;
  lastFetchedEpoch: number;
  currentLeaderEpoch: number;
  maxBytes: number;
  /** Left out of fetches until then, after an error from the leader. */
  delayedUntil: number;
}

/** One leader's fetch loop and its session (FetchSessionHandler's state). */
class LeaderFetch {
  sessionId = INVALID_SESSION_ID;
  epoch = INITIAL_EPOCH;
  running = false;
  /** The loop's wake-up while every partition it fetches is backing off. */
  sleep: Timer | undefined = undefined;
  /** By replica key, in the order followed. */
  readonly partitions = new Map<string, Followed>();
  nextSeq = 0;
  /** Partitions whose fetch state may have changed since the last fetch (the only ones an incremental one reads). */
  queue: Followed[] = [];
  /** Partitions backing off after an error. */
  readonly delayed = new Set<Followed>();
  /** The per-partition byte budget of the last fetch (all partitions are sent again when it changes). */
  perFetch = -1;
  forgotten: { topic: string; partition: number }[] = [];

  enqueue(f: Followed): void {
    if (f.queued) return;
    f.queued = true;
    this.queue.push(f);
  }

  constructor(readonly leaderId: number) {}

  /** Starts over with a full fetch (a new session). */
  resetSession(): void {
    this.sessionId = INVALID_SESSION_ID;
    this.epoch = INITIAL_EPOCH;
    this.forgotten = [];
  }
}

/**
 * Where a follower truncates when the leader answers with a diverging epoch (KIP-320), as
 * AbstractFetcherThread.getOffsetTruncationState decides: `mine` is the follower's own end for the largest epoch at
 * or below the leader's answer. If the follower has that very epoch, both logs agree up to the smaller of the two
 * ends and the truncation is complete; if not, it truncates to the end of its own largest epoch below the leader's
 * and asks again (the data past it may differ from the leader's even below the leader's end).
 */
export function truncationFor(
  mine: { epoch: number; endOffset: number },
  leader: { epoch: number; endOffset: number },
): { offset: number; complete: boolean } {
  if (mine.epoch === leader.epoch)
    return { offset: Math.max(0, Math.min(mine.endOffset, leader.endOffset)), complete: true };
  return { offset: Math.max(0, mine.endOffset), complete: false };
}

export class ReplicaFetcher {
  private leaders = new Map<number, LeaderFetch>();
  /** The loop following each partition (by replica key). */
  private following = new Map<string, LeaderFetch>();

  constructor(
    private readonly core: BrokerCore,
    private readonly replicaManager: ReplicaManager,
  ) {}

  reset(): void {
    this.leaders = new Map();
    this.following = new Map();
  }

  /**
   * A replica's role, leader or epoch changed: the loop that follows it looks at it in its next fetch (and forgets
   * it if it no longer follows it from that leader).
   */
  changed(replica: PartitionReplica): void {
    const lf = this.following.get(replica.key);
    const f = lf?.partitions.get(replica.key);
    if (f) lf!.enqueue(f);
  }

  /** This broker now follows `replica`'s leader: add it to that leader's fetch (starting the loop if needed). */
  follow(replica: PartitionReplica): void {
    const leaderId = replica.leaderId;
    let lf = this.leaders.get(leaderId);
    if (!lf) this.leaders.set(leaderId, (lf = new LeaderFetch(leaderId)));
    const existing = lf.partitions.get(replica.key);
    const previous = this.following.get(replica.key);
    const left = previous !== lf ? previous?.partitions.get(replica.key) : undefined;
    if (left) previous!.enqueue(left); // to be forgotten there
    this.following.set(replica.key, lf);
    // A new leader epoch or a new replica object is sent afresh (its fetch state changed).
    const f: Followed = {
      replica,
      // Map.set keeps an existing key's position.
      seq: existing ? existing.seq : lf.nextSeq++,
      queued: false,
      sent: false,
      fetchOffset: existing?.fetchOffset ?? -1,
      lastFetchedEpoch: -1,
      currentLeaderEpoch: -1,
      maxBytes: -1,
      delayedUntil: 0,
    };
    if (existing) {
      existing.queued = false;
      lf.delayed.delete(existing);
    }
    lf.partitions.set(replica.key, f);
    lf.enqueue(f);
    if (lf.sleep) {
      // Every other partition is backing off: fetch the new one now.
      lf.sleep.cancel();
      lf.sleep = undefined;
      this.core.schedule(0, () => this.fetch(lf), 'broker.replica-fetch');
      return;
    }
    if (lf.running) return;
    lf.running = true;
    this.core.schedule(0, () => this.fetch(lf), 'broker.replica-fetch');
  }

  /** Whether this broker still follows `f` from the loop's leader. */
  private stillFollowed(lf: LeaderFetch, f: Followed): boolean {
    const r = f.replica;
    return (
      r.role === 'follower' && r.leaderId === lf.leaderId && this.replicaManager.replicas.get(r.key) === r
    );
  }

  /** Stops following `f` from this loop; the session forgets it if it was sent. */
  private unfollow(lf: LeaderFetch, key: string, f: Followed): void {
    lf.partitions.delete(key);
    lf.delayed.delete(f);
    if (this.following.get(key) === lf) this.following.delete(key);
    if (f.sent) lf.forgotten.push({ topic: f.replica.topic, partition: f.replica.partition });
  }

  private fetch(lf: LeaderFetch): void {
    const core = this.core;
    const leaderId = lf.leaderId;
    const now = core.sim.now;
    const throttle = core.config['follower.replication.throttled.rate'];
    const maxWaitMs = core.config['replica.fetch.wait.max.ms'];
    // A throttled follower copies at most `rate` bytes per second: per fetch, what that rate allows in the
    // time the fetch loop takes (at least a round trip); modelled as a per-fetch byte budget.
    const perFetch = Number.isFinite(throttle)
      ? Math.max(1, Math.floor(throttle / 10))
      : core.config['replica.fetch.max.bytes'];
    const full = lf.epoch === INITIAL_EPOCH;
    // The partitions to look at, in the order followed: every one for a full fetch or a new byte budget, else
    // those queued since the last fetch and those whose back-off ended.
    let look: Followed[];
    if (full || perFetch !== lf.perFetch) {
      lf.perFetch = perFetch;
      for (const f of lf.queue) f.queued = false;
      lf.queue = [];
      look = [...lf.partitions.values()];
    } else {
      // (Almost always empty: an iterator over an empty set is not free at 4,900 fetches a virtual second.)
      if (lf.delayed.size > 0) for (const f of lf.delayed) if (f.delayedUntil <= now) lf.enqueue(f);
      look = lf.queue;
      lf.queue = [];
      for (let i = 0; i < look.length; i++) look[i]!.queued = false;
      if (look.length > 1) look.sort((a, b) => a.seq - b.seq);
    }
    // Partitions this broker no longer follows from this leader leave the session.
    let n = 0;
    for (let i = 0; i < look.length; i++) {
      const f = look[i]!;
      const key = f.replica.key;
      if (lf.partitions.get(key) !== f) continue; // replaced by a newer follow
      if (!this.stillFollowed(lf, f)) {
        this.unfollow(lf, key, f);
        continue;
      }
      if (f.delayedUntil > now) lf.delayed.add(f);
      else {
        lf.delayed.delete(f);
        look[n++] = f;
      }
    }
    look.length = n;
    if (lf.partitions.size === 0) {
      lf.running = false;
      lf.resetSession();
      return;
    }
    if (lf.delayed.size === lf.partitions.size) {
      // Every partition is backing off: sleep until the first back-off ends.
      let wakeAt = Number.POSITIVE_INFINITY;
      for (const f of lf.delayed) wakeAt = Math.min(wakeAt, f.delayedUntil);
      lf.sleep = core.schedule(
        wakeAt - now,
        () => {
          lf.sleep = undefined;
          this.fetch(lf);
        },
        'broker.replica-fetch',
      );
      return;
    }
    const parts: FetchPartition[] = [];
    const sent: Followed[] = [];
    for (let i = 0; i < look.length; i++) {
      const f = look[i]!;
      const log = f.replica.log;
      const fetchOffset = log.logEndOffset;
      const lastFetchedEpoch = log.latestEpoch;
      const currentLeaderEpoch = f.replica.leaderEpoch;
      if (
        !full &&
        f.sent &&
        f.fetchOffset === fetchOffset &&
        f.lastFetchedEpoch === lastFetchedEpoch &&
        f.currentLeaderEpoch === currentLeaderEpoch &&
        f.maxBytes === perFetch
      )
        continue;
      f.fetchOffset = fetchOffset;
      f.lastFetchedEpoch = lastFetchedEpoch;
      f.currentLeaderEpoch = currentLeaderEpoch;
      f.maxBytes = perFetch;
      sent.push(f);
      parts.push({
        topic: f.replica.topic,
        partition: f.replica.partition,
        fetchOffset,
        lastFetchedEpoch,
        currentLeaderEpoch,
        partitionMaxBytes: perFetch,
      });
    }
    const req: FetchRequest = {
      type: 'Fetch',
      replicaId: core.brokerId,
      maxWaitMs,
      minBytes: 1,
      maxBytes: core.config['replica.fetch.response.max.bytes'],
      sessionId: lf.sessionId,
      sessionEpoch: lf.epoch,
      partitions: parts,
    };
    if (!full && lf.forgotten.length > 0) req.forgotten = lf.forgotten;
    lf.forgotten = [];
    const started = core.sim.now;
    core.request<FetchResponse>(
      brokerNodeId(leaderId),
      req,
      (o) => {
        if (this.leaders.get(leaderId) !== lf) return;
        if (!o.ok) {
          // The session's state is unknown after a lost request: the next fetch is full (FetchSessionHandler).
          lf.resetSession();
          core.schedule(
            Math.max(0, 100 - (core.sim.now - started)),
            () => this.fetch(lf),
            'broker.replica-fetch',
          );
          return;
        }
        const res = o.response;
        if (res.errorCode) {
          if (
            res.errorCode === Errors.FETCH_SESSION_ID_NOT_FOUND.code ||
            res.errorCode === Errors.INVALID_FETCH_SESSION_EPOCH.code
          ) {
            core.emit('broker.fetch-session-reset', { leader: leaderId, errorCode: res.errorCode });
          }
          lf.resetSession();
          core.schedule(0, () => this.fetch(lf), 'broker.replica-fetch');
          return;
        }
        for (const f of sent) f.sent = true;
        if (full) {
          lf.sessionId = res.sessionId ?? INVALID_SESSION_ID;
          // No session cached on the leader: the next fetch is full again.
          lf.epoch = lf.sessionId === INVALID_SESSION_ID ? INITIAL_EPOCH : 1;
        } else {
          lf.epoch = nextEpoch(lf.epoch);
        }
        const bytes = this.applyResponse(lf, res);
        // Throttled copies pace the loop so that `rate` is not exceeded.
        const pace =
          Number.isFinite(throttle) && bytes > 0
            ? Math.max(0, (bytes / throttle) * 1000 - (core.sim.now - started))
            : 0;
        // The next fetch follows at once, as Kafka's fetcher thread builds it right after processing the answer
        // (AbstractFetcherThread.doWork loops), not as an event of its own.
        if (pace > 0) core.schedule(pace, () => this.fetch(lf), 'broker.replica-fetch');
        else this.fetch(lf);
      },
      maxWaitMs + 30_000,
    );
  }

  /** Appends what the leader sent, truncating first on a diverging epoch; returns the bytes appended. */
  private applyResponse(lf: LeaderFetch, res: FetchResponse): number {
    const core = this.core;
    let bytes = 0;
    for (const pr of res.partitions) {
      const r = this.replicaManager.findReplica(pr.topic, pr.partition);
      if (!r || r.role !== 'follower' || r.leaderId !== lf.leaderId) continue;
      // Whatever the answer did to it (an append, a truncation, an error), the next fetch looks at it.
      const f = lf.partitions.get(r.key);
      if (f) lf.enqueue(f);
      if (pr.errorCode === Errors.OFFSET_OUT_OF_RANGE.code && pr.logStartOffset > r.log.logEndOffset) {
        // Retention on the leader deleted what this follower lacks: it starts again at the leader's log start
        // (ReplicaFetcherThread's out-of-range handling, truncateFullyAndStartAt) and fetches from there at once.
        core.emit('broker.truncate-fully', {
          topic: r.topic,
          partition: r.partition,
          from: r.log.logEndOffset,
          to: pr.logStartOffset,
        });
        r.log.truncateFullyAndStartAt(pr.logStartOffset);
        continue;
      }
      if (pr.errorCode !== 0) {
        if (f) {
          f.delayedUntil = core.sim.now + core.config['replica.fetch.backoff.ms'];
          // Sent afresh when the back-off ends.
          f.sent = false;
        }
        continue;
      }
      if (pr.divergingEpoch) {
        const { offset: to, complete } = truncationFor(
          r.log.endOffsetForEpoch(pr.divergingEpoch.epoch),
          pr.divergingEpoch,
        );
        core.emit('broker.truncate', {
          topic: r.topic,
          partition: r.partition,
          from: r.log.logEndOffset,
          to,
        });
        r.log.truncateTo(Math.max(0, to));
        // A complete truncation leaves a log that agrees with the leader's up to its end: take the leader's high
        // watermark as any answer's. The leader's fetch session counts it as delivered and would not send it again
        // until it moves, so a follower that dropped it kept a high watermark behind while nothing was produced.
        if (complete)
          r.log.highWatermark = Math.max(r.log.highWatermark, Math.min(r.log.logEndOffset, pr.highWatermark));
        continue;
      }
      if (pr.batches.length > 0) {
        r.log.appendAsFollower(pr.batches);
        for (const b of pr.batches) bytes += b.bytes;
      }
      r.log.highWatermark = Math.min(r.log.logEndOffset, pr.highWatermark);
      // The leader's log start, as far as this log has it committed (UnifiedLog.maybeIncrementLogStartOffset).
      if (pr.logStartOffset > r.log.logStartOffset)
        r.log.incrementLogStartOffset(Math.min(pr.logStartOffset, r.log.highWatermark));
    }
    return bytes;
  }
}
