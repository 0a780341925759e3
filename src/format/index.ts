// Text exactly as Kafka's command-line tools print it: pure functions from plain view objects to the bytes
// the tool writes (newlines included), so the CLI, the API and scenario expectations can show and compare
// real tool output. Invalid input throws FormatInputError. Facts: apache/kafka tools sources named in each
// file, and the lines quoted in the workflows' documentation (AutoMQ's self-balancing example, bend-ingest-kafka).
export {
  type ConsumerGroupsLayout,
  type ConsumerGroupView,
  consumerGroupOffsetRows,
  type DescribeLayoutOptions,
  defaultLayout,
  formatAssignmentKafka4,
  formatConsumerGroupMembers,
  formatConsumerGroupOffsets,
  formatConsumerGroupState,
  formatMemberAssignment,
  type GroupMemberView,
  type GroupPartitionOffsetsView,
  type GroupStateName,
  type GroupTopicPartition,
  type MembersOptions,
  MISSING_COLUMN_VALUE,
  type StateOptions,
  type ToolOutput,
} from './consumer-groups.ts';
export {
  CONSUMER_PERF_CLIENT_ID,
  CONSUMER_PERF_DATE_FORMAT,
  CONSUMER_PERF_REPORTING_INTERVAL_MS,
  type ConsumerPerfProgressView,
  type ConsumerPerfSummaryView,
  formatConsumerPerfDate,
  formatConsumerPerfHeader,
  formatConsumerPerfProgress,
  formatConsumerPerfSummary,
  formatConsumerPerfTimeoutWarning,
} from './consumer-perf-test.ts';
export {
  type ExplicitProducerSummaryView,
  formatExplicitProducerSummary,
  goDuration,
} from './explicit-producer.ts';
export { FormatInputError, type FormatInputReason, type TextPosition } from './format-input-error.ts';
export { javaDate, javaFixed, javaFormat, log4jTimestamp, padRight } from './java-format.ts';
export { javaHashOrder, javaIntegerHash, javaStringHash, topicPartitionHash } from './java-hash-order.ts';
export { type JsonEntry, type JsonNode, parseJson, positionOf } from './json-source.ts';
export {
  formatCreatedTopic,
  formatTopicCommandError,
  formatTopicDescribe,
  formatTopicList,
  type PartitionDescribeView,
  type TopicDescribeOptions,
  type TopicDescribeView,
} from './kafka-topics.ts';
export {
  DEFAULT_PRODUCER_RETRIES,
  formatInvalidMetadataWarn,
  formatProduceErrorWarns,
  formatProduceRetryWarn,
  formatProducerPerfTotal,
  formatProducerPerfWindow,
  latencyPercentiles,
  latencySamplingInterval,
  MAX_LATENCY_SAMPLES,
  PRODUCER_PERF_CLIENT_ID,
  PRODUCER_PERF_REPORTING_INTERVAL_MS,
  type ProduceErrorView,
  ProducerPerfStats,
  type ProducerPerfTotalView,
  type ProducerPerfWindowView,
  SENDER_LOGGER,
  sampleLatencies,
} from './producer-perf-test.ts';
export {
  ANY_LOG_DIR,
  compareTopicPartitions,
  type ExecuteOptions,
  formatExecute,
  formatGenerate,
  formatReassignmentJson,
  formatVerify,
  type PartitionReassignmentStatus,
  parseReassignmentJson,
  type ReassignmentEntry,
  type ReassignmentJson,
  type ThrottleClearing,
  type TopicPartitionRef,
  tpString,
} from './reassign-partitions.ts';
export { formatVerifiableProducerEvent } from './verifiable-producer.ts';
