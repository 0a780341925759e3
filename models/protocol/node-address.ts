// Node addressing: the network id of each kind of server, from its Kafka `node.id`. Clients, brokers and the
// product layer all reach a server through these, so that no client imports a server to learn its address.
import type { NodeId } from '../sim/index.ts';

/** A broker's network id (`broker-<node.id>`). */
export const brokerNodeId = (brokerId: number): NodeId => `broker-${brokerId}`;

/** A KRaft controller's network id (`controller-<node.id>`, node ids 3000, 3001, ... as in Kafka's examples). */
export const controllerNodeId = (controllerId: number): NodeId => `controller-${controllerId}`;

/** The `node.id` a controller's network id names, or undefined when it names no controller. */
export function controllerIdOf(node: NodeId): number | undefined {
  if (!node.startsWith('controller-')) return undefined;
  const id = Number(node.slice('controller-'.length));
  return Number.isInteger(id) ? id : undefined;
}

/** The `node.id` a broker's network id names, or undefined when it names no broker. */
export function brokerIdOf(node: NodeId): number | undefined {
  if (!node.startsWith('broker-')) return undefined;
  const id = Number(node.slice('broker-'.length));
  return Number.isInteger(id) ? id : undefined;
}
