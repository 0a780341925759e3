// A client's metadata refresh as Java's metadata.requestUpdate() drives it: one Metadata request at a time, sent
// when the refresh backoff allows (MetadataCache.timeToAllowUpdate), otherwise one timer for when it does; a
// failed request counts toward the backoff and asks again. Producer and consumer both refresh this way; what an
// answer means to each is theirs (`answered`).

import type { MetadataResponse } from '../protocol/index.ts';
import type { NodeId, SimNode, Timer } from '../sim/index.ts';
import type { MetadataCache } from './metadata-cache.ts';

export class MetadataRefresh {
  private inFlight = false;
  private timer: Timer | undefined;

  constructor(
    private readonly client: SimNode,
    private readonly cache: MetadataCache,
    /** Trace label of the backoff timer (`producer.metadata-backoff`, ...). */
    private readonly backoffLabel: string,
    private readonly timeoutMs: () => number,
    /** After the cache took an answer (ok), or after a failure was counted and the retry set (not ok). */
    private readonly answered: (ok: boolean, node: NodeId, response: MetadataResponse | undefined) => void,
    /** Where the request goes; default a random known broker (the producer uses Java's leastLoadedNode). */
    private readonly pickNode?: () => NodeId,
  ) {}

  /** The client (re)started: nothing is in flight or pending any more. */
  reset(): void {
    this.inFlight = false;
    this.timer = undefined;
  }

  /** Asks for metadata as soon as the backoff allows; a no-op while a request is in flight. */
  request(): void {
    const client = this.client;
    if (this.inFlight || !client.up) return;
    const now = client.sim.now;
    const wait = this.cache.timeToAllowUpdate(now, client.random('metadata-backoff'));
    if (wait > 0) {
      if (this.timer?.pending && this.timer.time <= now + wait) return;
      this.timer?.cancel();
      this.timer = client.schedule(wait, () => this.request(), this.backoffLabel);
      return;
    }
    this.timer?.cancel();
    this.inFlight = true;
    const node = this.pickNode ? this.pickNode() : this.cache.pickNode(client.random('metadata'));
    client.request<MetadataResponse>(
      node,
      { type: 'Metadata', topics: null },
      (o) => {
        this.inFlight = false;
        if (o.ok) this.cache.update(o.response, client.sim.now);
        else {
          this.cache.failedUpdate(client.sim.now);
          this.request();
        }
        this.answered(o.ok, node, o.ok ? o.response : undefined);
      },
      this.timeoutMs(),
    );
  }
}
