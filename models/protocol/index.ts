// The vocabulary every model shares: the requests and responses servers and clients exchange on the simulated
// network (broker, controller, group coordinator, Raft quorum, auto-balancer metrics), node addressing, and
// Kafka's protocol error codes (their names, whether clients retry them, the Java exception each surfaces as).
// Brokers, controllers, coordinators and clients speak only these shapes, and src/format prints the errors
// exactly as Kafka's tools do; it is also where the Kafka wire codec meets the model.
// Shapes follow Kafka's message definitions (clients/src/main/resources/common/message/*.json), camelCased and
// trimmed to what the simulator uses. Left out: API keys and versions, byte encodings, and the error codes the
// simulator never produces.
// Facts: apache/kafka `org.apache.kafka.common.protocol.Errors` and the protocol error table
// (https://kafka.apache.org/protocol#protocol_error_codes); which errors trigger a metadata refresh is from the
// producer's `Sender`.
export * from './auto-balancer-metrics.ts';
export * from './broker-requests.ts';
export * from './consumer-group-describe.ts';
export * from './consumer-group-heartbeat.ts';
export * from './controller-requests.ts';
export {
  ERRORS_PACKAGE,
  type ErrorEntry,
  type ErrorName,
  Errors,
  errorByCode,
  type FailureName,
  isKnownErrorCode,
  KafkaError,
  kafkaError,
} from './errors.ts';
export * from './group-requests.ts';
export * from './node-address.ts';
export * from './raft-requests.ts';
export type { TopicPartition } from './topic-partition.ts';
