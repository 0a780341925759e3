// Sticky partitioning for keyless records (KIP-794, Java's BuiltInPartitioner; librdkafka's
// sticky.partitioning.linger.ms): a topic's records go to one partition until it has had batch.size bytes (Java) or
// for sticky.partitioning.linger.ms (librdkafka), or until the partition loses its leader; then another
// partition with a leader is picked at random.

import type { RandomStream } from '../sim/index.ts';
import type { ProducerConfig } from './config.ts';
import type { MetadataCache } from './metadata-cache.ts';
import { nextStickyPartition } from './partitioners.ts';

export class StickyPartitioner {
  private readonly sticky = new Map<string, { partition: number; bytes: number; since: number }>();

  constructor(
    private readonly config: ProducerConfig,
    private readonly metadata: MetadataCache,
    private readonly random: () => RandomStream,
  ) {}

  /** The partition for the topic's next keyless record at `now`. */
  partition(topic: string, now: number): number {
    const s = this.sticky.get(topic);
    const lingerSwitch = this.config['sticky.partitioning.linger.ms'];
    const expired =
      !s ||
      (lingerSwitch > 0 ? now - s.since >= lingerSwitch : s.bytes >= this.config['batch.size']) ||
      (this.metadata.leader(topic, s.partition)?.leader ?? -1) < 0;
    if (!expired) return s.partition;
    const available = this.metadata.availablePartitions(topic);
    const all = this.metadata.partitionCount(topic) ?? 1;
    const partition = nextStickyPartition(available, all, s?.partition, this.random().next());
    if (s) {
      s.partition = partition;
      s.bytes = 0;
      s.since = now;
    } else this.sticky.set(topic, { partition, bytes: 0, since: now });
    return partition;
  }

  /** Counts bytes appended to the topic's sticky partition. */
  noteBytes(topic: string, bytes: number): void {
    const s = this.sticky.get(topic);
    if (s) s.bytes += bytes;
  }
}
