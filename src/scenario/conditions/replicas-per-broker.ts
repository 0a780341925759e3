// replicasPerBroker: how partition replicas spread over the brokers.
import { replicasOf } from './metadata-reads.ts';
import { perBrokerCondition } from './per-broker.ts';

export const replicasPerBroker = perBrokerCondition(
  'replicas',
  replicasOf,
  'Like leadersPerBroker, counting replicas instead of leaders.',
);
