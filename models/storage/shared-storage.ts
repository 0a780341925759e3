// AutoMQ-style shared storage: every partition's data lives in object storage (with a durable WAL in front of
// it), not on a broker. A partition therefore has one replica, survives the loss of its broker, and moves between
// brokers without copying data: the old broker closes it (uploading what is still only in its WAL) and the new
// one opens it from object-storage metadata. kafkasim keeps one PartitionLog per partition here; the broker that
// leads it is the only writer.
import { PartitionLog } from './partition-log.ts';

export class SharedStorage {
  private readonly logs = new Map<string, PartitionLog>();
  /** `topicId:partition` strings, made once per partition (the checks look logs up after every event). */
  private readonly keys = new Map<string, string[]>();

  private key(topicId: string, partition: number): string {
    let keys = this.keys.get(topicId);
    if (!keys) this.keys.set(topicId, (keys = []));
    return (keys[partition] ??= `${topicId}:${partition}`);
  }

  /** The partition's log, created empty on first open. */
  open(topicId: string, topic: string, partition: number): PartitionLog {
    const key = this.key(topicId, partition);
    let log = this.logs.get(key);
    if (!log) {
      log = new PartitionLog(topic, partition);
      this.logs.set(key, log);
    }
    return log;
  }

  get(topicId: string, partition: number): PartitionLog | undefined {
    return this.logs.get(this.key(topicId, partition));
  }

  /** Deletes a topic's data (after DeleteTopics). */
  deleteTopic(topicId: string): void {
    for (const key of [...this.logs.keys()]) if (key.startsWith(`${topicId}:`)) this.logs.delete(key);
    this.keys.delete(topicId);
  }

  /** Every stored partition log (for checks and reports). */
  entries(): [string, PartitionLog][] {
    return [...this.logs.entries()];
  }
}
