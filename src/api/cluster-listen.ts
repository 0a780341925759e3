// `cluster.listen(options)`: the method is added to Cluster here rather than written in src/cluster/cluster.ts,
// because what it opens (the Kafka wire listener, the host that applies and records what the listener receives,
// the wall-clock pacer) is built on the cluster: the cluster folder imports neither src/wire nor src/api
// (docs/architecture.md, dependency rules). The library entry (src/index.ts) loads this file, so every cluster a
// library user creates has the method; the listener itself (listen.ts) loads on the first call.
import { Cluster } from '../cluster/index.ts';
import type { ClusterListener, ClusterListenOptions } from './listen.ts';

export type { ClusterListener, ClusterListenOptions } from './listen.ts';

declare module '../cluster/cluster.ts' {
  interface Cluster {
    /**
     * Opens Kafka wire-protocol listeners on this cluster (one port per broker plus the controller's, loopback)
     * and paces the simulation to the wall clock (`speed`, default 1) so that real clients can use it; from then
     * on the listener's clock drives the simulation. `close()` stops both.
     */
    listen(options: ClusterListenOptions): Promise<ClusterListener>;
  }
}

Cluster.prototype.listen = async function listen(this: Cluster, options: ClusterListenOptions) {
  const { listenCluster } = await import('./listen.ts');
  return listenCluster(this, options);
};
