// A partition of a topic, as Kafka's `org.apache.kafka.common.TopicPartition` names one: the key most requests,
// assignments and offsets are keyed by.

export interface TopicPartition {
  topic: string;
  partition: number;
}
