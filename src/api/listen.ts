// `cluster.listen({ kafkaPort })`: the Kafka listeners on a cluster built with the library, with the simulation
// paced to the wall clock, as `kafkasim serve --kafka-port` does for a served one. It lives here, not in src/wire:
// it joins the wire listener with the host and pacer that apply what the listener receives. cluster-listen.ts
// adds the method to Cluster and loads this file on first use.
import type { Cluster } from '../cluster/index.ts';
import { KafkaListener, type KafkaListenerOptions, type ListenerAddresses } from '../wire/index.ts';
import { SimHost } from './host.ts';
import { Pacer, type Speed } from './pacer.ts';
import { World } from './world.ts';

export interface ClusterListenOptions extends KafkaListenerOptions {
  /** Virtual seconds per wall second (default 1: real clients' timeouts mean what they say). */
  speed?: Speed;
}

export interface ClusterListener extends ListenerAddresses {
  /** The host that applies and records what the listeners receive (its request log replays the run). */
  readonly host: SimHost;
  readonly pacer: Pacer;
  close(): Promise<void>;
}

export async function listenCluster(
  cluster: Cluster,
  options: ClusterListenOptions,
): Promise<ClusterListener> {
  const host = new SimHost({ seed: cluster.sim.seed }, {}, new World(cluster, undefined));
  const pacer = new Pacer(host, { speed: options.speed ?? 1 });
  const listener = new KafkaListener(host, options);
  const addresses = await listener.start();
  pacer.start();
  return {
    ...addresses,
    host,
    pacer,
    close: async () => {
      pacer.close();
      await listener.close();
    },
  };
}
