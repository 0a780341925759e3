// A partition as the consumers name it, its `topic-partition` key (the consumers' map key, as Kafka's
// TopicPartition.toString prints it) and the order members sort partitions in.

export interface TopicPartitionRef {
  topic: string;
  partition: number;
}

export const keyOf = (tp: TopicPartitionRef): string => `${tp.topic}-${tp.partition}`;

export const byTopicPartition = (a: TopicPartitionRef, b: TopicPartitionRef): number =>
  a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition;
