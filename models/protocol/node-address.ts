// Node addressing: the network id of each kind of server, from its Kafka `node.id`. Clients, brokers and the
// product layer all reach a server through these, so that no client imports a server to learn its address.
import type { NodeId } from '../sim/index.ts';

// A broker's id is built on every request a client or a follower sends: the same string object each time, so that
// the network's maps find it by its cached hash instead of hashing a new string per message.
const brokerIds: NodeId[] = [];

/** A broker's network id (`broker-<node.id>`). */
export function brokerNodeId(brokerId: number): NodeId {
  if (brokerId >= 0 && brokerId < 65_536 && Number.isInteger(brokerId))
    return (brokerIds[brokerId] ??= `broker-${brokerId}`);
  return `broker-${brokerId}`;
}

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
