// The wire vocabulary every model shares: Kafka's protocol error codes, their names, whether clients retry
// them, and the Java exception (class and default message) each one surfaces as. Brokers, controllers,
// coordinators and clients answer and react with these, and src/format prints them exactly as Kafka's tools do.
// Left out: request/response schemas, API keys and versions, and the error codes the simulator never produces.
// Facts: apache/kafka `clients/.../common/protocol/Errors.java` and the generated protocol_errors table
// (Kafka 3.9 docs); which errors trigger a metadata refresh is from `producer/internals/Sender.java`.
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
