// A consumer client in assign mode: the application names the partitions (assign), and the fetcher it owns
// (fetcher.ts) fetches them from their leaders and hands every new batch to the application's listeners at once.
// Subscribe mode is GroupConsumer (group-consumer.ts), which owns a fetcher of its own.

import { type NodeId, SimNode, type Simulation } from '../sim/index.ts';
import {
  type ClientFlavour,
  type ConsumerConfig,
  type ConsumerConfigInput,
  consumerConfig,
} from './config.ts';
import { ConsumerMetadata } from './consumer-metadata.ts';
import type { ErrorCounts } from './error-counts.ts';
import { type ConsumedBatches, Fetcher, type OffsetReset } from './fetcher.ts';
import type { MetadataCache } from './metadata-cache.ts';
import { keyOf, type TopicPartitionRef } from './topic-partition-key.ts';

export interface ConsumerOptions {
  flavour?: ClientFlavour;
  config?: ConsumerConfigInput;
  bootstrap: NodeId[];
}

export class Consumer extends SimNode {
  readonly flavour: ClientFlavour;
  readonly config: ConsumerConfig;
  readonly metadata: MetadataCache;
  recordsConsumed = 0;
  bytesConsumed = 0;
  readonly errorCounts: ErrorCounts = {};
  /** Every auto.offset.reset this consumer did, in order. */
  readonly resets: readonly OffsetReset[];
  private readonly listeners: ((c: ConsumedBatches) => void)[] = [];
  private readonly clusterMetadata: ConsumerMetadata;
  private readonly fetcher: Fetcher;

  constructor(sim: Simulation, id: NodeId, options: ConsumerOptions) {
    super(sim, id);
    this.flavour = options.flavour ?? 'java';
    this.config = consumerConfig(this.flavour, options.config);
    this.clusterMetadata = new ConsumerMetadata(options.bootstrap, {
      node: this,
      config: this.config,
      answered: () => this.fetcher.kick(),
    });
    this.metadata = this.clusterMetadata.cache;
    this.fetcher = new Fetcher({
      node: this,
      flavour: this.flavour,
      config: this.config,
      metadata: this.metadata,
      errorCounts: this.errorCounts,
      requestMetadataUpdate: () => this.clusterMetadata.requestUpdate(),
      fetchable: () => true,
      onFetched: (_st, c) => {
        this.recordsConsumed += c.records;
        this.bytesConsumed += c.bytes;
        for (const l of this.listeners) l(c);
      },
      onReset: () => {},
    });
    this.resets = this.fetcher.resets;
  }

  protected override onStart(): void {
    // Positions are volatile: after a restart they come from auto.offset.reset.
    this.fetcher.restart();
    this.clusterMetadata.start();
  }

  onRecords(listener: (c: ConsumedBatches) => void): void {
    this.listeners.push(listener);
  }

  /** Replaces the assignment. Positions of kept partitions are kept. */
  assign(partitions: readonly TopicPartitionRef[]): void {
    this.fetcher.assign(partitions);
  }

  assignedPartitions(): TopicPartitionRef[] {
    return this.fetcher.assignedPartitions();
  }

  seek(tp: TopicPartitionRef, offset: number): void {
    this.fetcher.seek(keyOf(tp), offset);
  }

  position(tp: TopicPartitionRef): number | undefined {
    return this.fetcher.position(keyOf(tp));
  }

  /** The lag the consumer knows of: high watermark − position, summed over its partitions. */
  get lag(): number {
    return this.fetcher.lag;
  }

  /** Asks for metadata at once, past the backoff (Java's requestUpdateForNewTopics: new topics are wanted). */
  refreshMetadata(): void {
    this.clusterMetadata.refreshNow();
  }
}
