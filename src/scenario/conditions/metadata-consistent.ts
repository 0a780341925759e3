// metadataConsistent: every running broker and controller holds the active controller's committed image, or one
// it held within the last metadata fetch wait (a node that learns of a commit only from its next Fetch answer).
//
// Why not exactly the current image: under a steady metadata load the quorum's images are never all equal at one
// instant for long. A follower (a voter or a broker) learns the leader's high watermark only from a Fetch answer,
// and after appending it fetches again with nothing new to read, so that fetch is parked until the next batch
// (KafkaRaftClient before KAFKA-14145, https://github.com/apache/kafka/pull/19800, Kafka 4.1). Meanwhile its
// position has moved the leader's high watermark. So each follower is one commit behind the active controller for
// most of every batch interval; all images are equal only in the sub-millisecond gaps between a follower applying
// the last answer and the first next Fetch reaching the leader, and only when the jitter leaves such a gap at all,
// which a waitUntil checking at most every 1 ms mostly misses (kraft-flush with kafkasim.raft.fsync.ms=3 waited its
// whole 30 s timeout on seeds 1 to 3, the gaps 0.1-0.6 ms long and on about half the batches). A node that is down, partitioned, stuck or diverged still fails: its image is
// not one the active controller held in the window (the window moves on; a diverged image was never held).

import type { MetadataImage } from '../../../models/metadata/index.ts';
import type { Cluster } from '../../cluster/index.ts';
import type { ConditionDefinition } from './condition.ts';

/** Images are immutable values: the same offset and the same content (compared structurally) are equal. */
function sameImage(a: MetadataImage, b: MetadataImage): boolean {
  if (a === b) return true;
  if (a.offset !== b.offset) return false;
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * The active controller's committed images of the last `windowMs` of virtual time, with the last time each was its
 * image (oldest first). Recorded after every event from the moment a metadataConsistent condition is armed.
 */
class ActiveImages {
  readonly #held: { image: MetadataImage; until: number }[] = [];
  #current: MetadataImage | undefined;

  constructor(
    private readonly cluster: Cluster,
    readonly windowMs: number,
  ) {
    this.#record();
    cluster.sim.onAfterEvent(() => this.#record());
  }

  #record(): void {
    const image = this.cluster.activeController()?.committedImage;
    if (image === this.#current) return;
    const now = this.cluster.sim.now;
    if (this.#current) this.#held.push({ image: this.#current, until: now });
    this.#current = image;
    const held = this.#held;
    let drop = 0;
    while (drop < held.length && held[drop]!.until < now - this.windowMs) drop++;
    if (drop > 0) held.splice(0, drop);
  }

  /** An image the active controller held at some time in the last `windowMs` (the current one included). */
  heldRecently(image: MetadataImage): boolean {
    if (this.#current && sameImage(this.#current, image)) return true;
    const from = this.cluster.sim.now - this.windowMs;
    for (let i = this.#held.length - 1; i >= 0; i--) {
      const h = this.#held[i]!;
      if (h.until < from) break;
      if (sameImage(h.image, image)) return true;
    }
    return false;
  }
}

const histories = new WeakMap<Cluster, ActiveImages>();
const historyOf = (cluster: Cluster): ActiveImages => {
  let h = histories.get(cluster);
  if (!h) histories.set(cluster, (h = new ActiveImages(cluster, lagWindowMs(cluster))));
  return h;
};

/**
 * How long a healthy node may lag the active controller's commits: the longest a parked metadata Fetch waits
 * before it is answered with the current high watermark (the Raft voters' and the brokers' settings, the larger).
 */
function lagWindowMs(cluster: Cluster): number {
  const raft = cluster.activeController()?.raft;
  const broker = cluster.brokers.values().next().value;
  return Math.max(
    raft?.config['kafkasim.raft.fetch.max.wait.ms'] ?? 0,
    broker?.config['kafkasim.metadata.fetch.max.wait.ms'] ?? 0,
  );
}

export const metadataConsistent: ConditionDefinition<true, 'cluster'> = {
  scope: 'cluster',
  schema: { type: 'boolean', enum: [true], title: 'true' },
  syntax: '`true`',
  description:
    "`true`: an active controller exists and every running broker and controller holds the active controller's committed metadata image, or one the active controller held within the last metadata fetch wait (`kafkasim.raft.fetch.max.wait.ms`, `kafkasim.metadata.fetch.max.wait.ms`: 500 ms), as a follower that learns of a commit from its next Fetch answer does under a steady load. Use it in waitUntil to wait for convergence.",
  arm: (_v, ctx) => void historyOf(ctx.cluster),
  evaluate(_v, ctx) {
    const { cluster } = ctx;
    const active = cluster.activeController();
    if (!active)
      return { passed: false, expected: 'one metadata image everywhere', actual: 'no active controller' };
    const history = historyOf(cluster);
    const image = active.committedImage;
    const consistent = (other: MetadataImage) =>
      other === image || sameImage(other, image) || history.heldRecently(other);
    const behind: Record<string, number> = {};
    for (const b of cluster.brokers.values()) if (b.up && !consistent(b.image)) behind[b.id] = b.image.offset;
    for (const x of cluster.controllers)
      if (x.up && x !== active && !consistent(x.committedImage)) behind[x.id] = x.committedImage.offset;
    return {
      passed: Object.keys(behind).length === 0,
      expected: `every running broker and controller holds the active controller's committed image (or one it held in the last ${history.windowMs} ms)`,
      actual: { activeController: active.id, offset: image.offset, differing: behind },
    };
  },
};
