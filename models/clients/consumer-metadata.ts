// A consumer's metadata (Java's ConsumerMetadata, kept fresh by the network client's metadata updater;
// librdkafka's metadata refresh timer): the cache of partition leaders, refreshed at start-up, every
// metadata.max.age.ms, and on demand (a fetch error, an unknown leader) when the refresh backoff allows, one
// request at a time. Both consumers own one; what an answer means is theirs (`answered`): the fetcher looks for
// leaders again, a group member checks its subscription on the periodic ones.

import type { NodeId, SimNode } from '../sim/index.ts';
import type { ConsumerConfig } from './config.ts';
import { MetadataCache } from './metadata-cache.ts';
import { MetadataRefresh } from './metadata-refresh.ts';

/** What the metadata needs of the consumer it is kept for. */
export interface ConsumerMetadataClient {
  /** The client node the Metadata requests and timers belong to. */
  readonly node: SimNode;
  readonly config: ConsumerConfig;
  /**
   * After every refresh: `ok` when the cache took an answer; `periodic` when that answer is the start-up or
   * periodic refresh's (librdkafka's cgrp_update requests) rather than a leader query's after an error.
   */
  answered(ok: boolean, periodic: boolean): void;
}

export class ConsumerMetadata {
  readonly cache: MetadataCache;
  private readonly refresh: MetadataRefresh;
  /** The next answer is the start-up or periodic refresh's. */
  private periodicRefreshDue = false;

  constructor(
    bootstrap: NodeId[],
    private readonly client: ConsumerMetadataClient,
  ) {
    const { node, config } = client;
    this.cache = new MetadataCache(bootstrap, {
      initialMs: config['retry.backoff.ms'],
      maxMs: config['retry.backoff.max.ms'],
    });
    this.refresh = new MetadataRefresh(
      node,
      this.cache,
      'consumer.metadata-backoff',
      () => config['request.timeout.ms'],
      (ok) => {
        const periodic = ok && this.periodicRefreshDue;
        if (ok) this.periodicRefreshDue = false;
        client.answered(ok, periodic);
      },
    );
  }

  /** The client (re)started: refresh now, then every metadata.max.age.ms. */
  start(): void {
    const { node, config } = this.client;
    this.refresh.reset();
    this.periodicRefreshDue = true;
    this.refreshNow();
    // The refresh timer counts from the client's start (librdkafka arms rk_metadata_refresh_tmr when the client
    // is created; Java's metadata.max.age.ms counts from the last update, which here is the start).
    node.every(
      config['metadata.max.age.ms'],
      () => {
        this.cache.expire();
        this.periodicRefreshDue = true;
        this.requestUpdate();
      },
      'consumer.metadata-max-age',
    );
  }

  /** Asks for metadata at once, past the backoff (Java's requestUpdateForNewTopics: new topics are wanted). */
  refreshNow(): void {
    this.cache.requestUpdateForNewTopics();
    this.requestUpdate();
  }

  /**
   * Java's metadata.requestUpdate() after a fetch error or while a leader is unknown: the request goes when the
   * refresh backoff allows (MetadataCache.timeToAllowUpdate), one at a time, not back to back.
   */
  requestUpdate(): void {
    this.refresh.request();
  }
}
