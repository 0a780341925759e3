// Which member epoch holds each partition of a consumer-protocol group (Kafka's ConsumerGroup.currentPartitionEpoch,
// addPartitionEpochs, removePartitionEpochs): a partition is held from the moment it is in a member's assigned
// partitions until it has left its pending revocations. Setting a partition that is still held is a broken
// invariant (two owners) and throws, as Kafka's IllegalStateException does.
import type { ConsumerGroupMember } from './consumer-group-member.ts';
import { type PartitionAssignment, partitionsOf } from './server-assignors/index.ts';

export class PartitionEpochs {
  /** `topicId:partition` → epoch of the member holding it. */
  private readonly epochs = new Map<string, number>();

  /** The epoch of the member holding the partition, -1 when free. */
  epochOf(topicId: string, partition: number): number {
    return this.epochs.get(`${topicId}:${partition}`) ?? -1;
  }

  addMember(m: ConsumerGroupMember): void {
    this.add(m.assignedPartitions, m.memberEpoch, m.memberId);
    this.add(m.partitionsPendingRevocation, m.memberEpoch, m.memberId);
  }

  removeMember(m: ConsumerGroupMember): void {
    for (const a of [m.assignedPartitions, m.partitionsPendingRevocation])
      for (const [t, p] of partitionsOf(a)) {
        const key = `${t}:${p}`;
        const held = this.epochs.get(key);
        if (held !== m.memberEpoch)
          throw new Error(
            `Cannot remove the epoch ${m.memberEpoch} from ${key} because the partition is still owned at a different epoch ${held}`,
          );
        this.epochs.delete(key);
      }
  }

  private add(a: PartitionAssignment, epoch: number, memberId: string): void {
    for (const [t, p] of partitionsOf(a)) {
      const key = `${t}:${p}`;
      const prev = this.epochs.get(key);
      if (prev !== undefined)
        throw new Error(
          `Cannot set the epoch of ${key} to ${epoch} for ${memberId} because the partition is still owned at epoch ${prev}`,
        );
      this.epochs.set(key, epoch);
    }
  }
}
