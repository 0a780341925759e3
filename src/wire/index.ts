// The Kafka wire protocol: listeners that let unmodified Kafka clients (kafkajs, librdkafka and what is built on
// it, the Java client) produce, consume in groups and administer the simulated cluster, through the same broker,
// coordinator and controller models the simulated clients use. The codec is generated from Apache Kafka's message
// definitions (src/wire/definitions, scripts/gen-wire-codec.ts). Left out: transactions, fetch sessions (declined),
// SASL/TLS, quotas, the consumer group protocol of KIP-848, message formats before magic 2.

export { type InProcessTransport, inProcessTransport, type SocketFactory } from './in-process.ts';
export {
  KafkaListener,
  type KafkaListenerOptions,
  type ListenerAddresses,
  MAX_REQUEST_BYTES,
  WIRE_LOG_METHOD,
  type WireHost,
  WireReplay,
} from './listener.ts';
export { type ConnectionSink, type WireAddress, WireSession } from './session.ts';
export { ApiKey, SUPPORTED } from './supported-apis.ts';
