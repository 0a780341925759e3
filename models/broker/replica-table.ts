// State kept per (broker, topic id, partition) replica by a checker, found without building a key string.

/** Per (broker, topic id, partition) state, without building a key string per lookup. */
export class ReplicaTable<S> {
  readonly #byBroker = new Map<number, Map<string, (S | undefined)[]>>();

  get(brokerId: number, topicId: string, partition: number): S | undefined {
    return this.#byBroker.get(brokerId)?.get(topicId)?.[partition];
  }

  set(brokerId: number, topicId: string, partition: number, state: S): void {
    let topics = this.#byBroker.get(brokerId);
    if (!topics) this.#byBroker.set(brokerId, (topics = new Map()));
    let parts = topics.get(topicId);
    if (!parts) topics.set(topicId, (parts = []));
    parts[partition] = state;
  }
}
