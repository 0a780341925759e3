// The follower side of replication (Kafka's ReplicaFetcherThread over AbstractFetcherThread): one fetch loop per
// leader broker, each fetch covering every partition this broker follows from that leader. The answers append
// to the follower's log and carry the leader's high watermark; a diverging epoch (KIP-320) truncates the log
// first. follower.replication.throttled.rate paces the loop.

import type { FetchRequest, FetchResponse } from '../protocol/index.ts';
import { brokerNodeId } from '../protocol/index.ts';
import type { BrokerCore } from './broker-core.ts';
import type { ReplicaManager } from './replica-manager.ts';

export class ReplicaFetcher {
  /** Leaders a fetch loop runs for. */
  private fetchers = new Map<number, boolean>();

  constructor(
    private readonly core: BrokerCore,
    private readonly replicaManager: ReplicaManager,
  ) {}

  reset(): void {
    this.fetchers = new Map();
  }

  /** Starts the fetch loop for `leaderId` unless it runs already (it stops when nothing follows that leader). */
  ensureFetcher(leaderId: number): void {
    if (this.fetchers.get(leaderId)) return;
    this.fetchers.set(leaderId, true);
    this.core.schedule(0, () => this.followerFetch(leaderId), 'broker.replica-fetch');
  }

  private followerFetch(leaderId: number): void {
    const core = this.core;
    const following = [...this.replicaManager.replicas.values()].filter(
      (r) => r.role === 'follower' && r.leaderId === leaderId,
    );
    if (following.length === 0) {
      this.fetchers.delete(leaderId);
      return;
    }
    const throttle = core.config['follower.replication.throttled.rate'];
    const maxWaitMs = core.config['replica.fetch.wait.max.ms'];
    // A throttled follower copies at most `rate` bytes per second: per fetch, what that rate allows in the
    // time the fetch loop takes (at least a round trip); modelled as a per-fetch byte budget.
    const perFetch = Number.isFinite(throttle)
      ? Math.max(1, Math.floor(throttle / 10))
      : core.config['replica.fetch.max.bytes'];
    const req: FetchRequest = {
      type: 'Fetch',
      replicaId: core.brokerId,
      maxWaitMs,
      minBytes: 1,
      maxBytes: core.config['replica.fetch.response.max.bytes'],
      partitions: following.map((r) => ({
        topic: r.topic,
        partition: r.partition,
        fetchOffset: r.log.logEndOffset,
        lastFetchedEpoch: r.log.latestEpoch,
        currentLeaderEpoch: r.leaderEpoch,
        partitionMaxBytes: perFetch,
      })),
    };
    const started = core.sim.now;
    core.request<FetchResponse>(
      brokerNodeId(leaderId),
      req,
      (o) => {
        if (!o.ok) {
          core.schedule(
            Math.max(0, 100 - (core.sim.now - started)),
            () => this.followerFetch(leaderId),
            'broker.replica-fetch',
          );
          return;
        }
        let bytes = 0;
        for (const pr of o.response.partitions) {
          const r = this.replicaManager.findReplica(pr.topic, pr.partition);
          if (!r || r.role !== 'follower' || r.leaderId !== leaderId) continue;
          if (pr.errorCode !== 0) continue;
          if (pr.divergingEpoch) {
            const mine = r.log.endOffsetForEpoch(pr.divergingEpoch.epoch);
            const to = Math.min(
              pr.divergingEpoch.endOffset,
              mine.epoch === pr.divergingEpoch.epoch ? mine.endOffset : pr.divergingEpoch.endOffset,
            );
            core.emit('broker.truncate', {
              topic: r.topic,
              partition: r.partition,
              from: r.log.logEndOffset,
              to,
            });
            r.log.truncateTo(Math.max(0, to));
            continue;
          }
          if (pr.batches.length > 0) {
            r.log.appendAsFollower(pr.batches);
            for (const b of pr.batches) bytes += b.bytes;
          }
          r.log.highWatermark = Math.min(r.log.logEndOffset, pr.highWatermark);
        }
        // Throttled copies pace the loop so that `rate` is not exceeded.
        const pace =
          Number.isFinite(throttle) && bytes > 0
            ? Math.max(0, (bytes / throttle) * 1000 - (core.sim.now - started))
            : 0;
        core.schedule(pace, () => this.followerFetch(leaderId), 'broker.replica-fetch');
      },
      maxWaitMs + 30_000,
    );
  }
}
