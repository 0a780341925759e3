// What a producer's network client knows of its brokers (Java's NetworkClient: connectionStates and
// inFlightRequests): which brokers it has a connection to, how many requests are in flight to each, and
// leastLoadedNode, where a metadata request goes.

import { brokerNodeId } from '../protocol/index.ts';
import type { NodeId, RandomStream } from '../sim/index.ts';
import type { MetadataCache } from './metadata-cache.ts';

export class NodeConnections {
  private readonly inFlight = new Map<number, number>();
  /** Brokers this producer has a connection to (it sent them a request). */
  private readonly connected = new Set<number>();

  constructor(
    private readonly metadata: MetadataCache,
    private readonly random: () => RandomStream,
  ) {}

  /** Requests in flight to the broker. */
  inFlightTo(broker: number): number {
    return this.inFlight.get(broker) ?? 0;
  }

  /** A request went to the broker (over a connection it now has). */
  sent(broker: number): void {
    this.inFlight.set(broker, (this.inFlight.get(broker) ?? 0) + 1);
    this.connected.add(broker);
  }

  /** A request to the broker came back or failed. */
  answered(broker: number): void {
    this.inFlight.set(broker, (this.inFlight.get(broker) ?? 1) - 1);
  }

  /** Java's NetworkClient closes the connection on a timeout or a disconnect. */
  disconnect(broker: number): void {
    this.connected.delete(broker);
  }

  /** The client (re)started: no connection survives. */
  reset(): void {
    this.connected.clear();
  }

  /**
   * Java's NetworkClient.leastLoadedNode, where a metadata request goes: from a random starting point, the first
   * connected broker with nothing in flight, else the connected one with the fewest requests in flight, else one
   * it can connect to. On a busy connection the request waits behind the produce requests ahead of it (a broker
   * handles one request per connection at a time), which is how long a producer takes to learn of a move.
   */
  leastLoadedNode(): NodeId {
    const ids = this.metadata.brokers();
    if (ids.length === 0) return this.metadata.pickNode(this.random());
    const offset = this.random().int(0, ids.length - 1);
    let ready: number | undefined;
    let readyInFlight = Number.POSITIVE_INFINITY;
    let other: number | undefined;
    for (let i = 0; i < ids.length; i++) {
      const id = ids[(offset + i) % ids.length]!;
      const inFlight = this.inFlight.get(id) ?? 0;
      if (this.connected.has(id)) {
        if (inFlight === 0) return brokerNodeId(id);
        if (inFlight < readyInFlight) {
          ready = id;
          readyInFlight = inFlight;
        }
      } else other ??= id;
    }
    const id = ready ?? other!;
    this.connected.add(id);
    return brokerNodeId(id);
  }
}
