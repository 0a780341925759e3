// The server-side range assignor (`range`, Kafka's group-coordinator assignor/RangeAssignor): per topic, the
// subscribed members sorted (static members first by instance id, then dynamic ones by member id) get contiguous
// ranges, the first `partitions % members` one partition more. Co-partitioned when the topics have equal counts.
// Not sticky: a change of members moves ranges, and incremental reconciliation then revokes before it assigns.
import { assignmentOf } from './assignment.ts';
import type { GroupSpec, PartitionAssignment, ServerAssignor, ServerAssignorMember } from './types.ts';

function compareMembers(a: ServerAssignorMember, b: ServerAssignorMember): number {
  if (a.instanceId !== null && b.instanceId !== null)
    return a.instanceId < b.instanceId ? -1 : a.instanceId > b.instanceId ? 1 : 0;
  if (a.instanceId !== null) return -1;
  if (b.instanceId !== null) return 1;
  return a.memberId < b.memberId ? -1 : a.memberId > b.memberId ? 1 : 0;
}

export const serverRangeAssignor: ServerAssignor = {
  name: 'range',
  assign(spec: GroupSpec, numPartitions: (topicId: string) => number): Record<string, PartitionAssignment> {
    const members = [...spec.members].sort(compareMembers);
    const topics = new Map<string, { numPartitions: number; members: number; next: number; extra: number }>();
    for (const m of members)
      for (const t of m.subscribedTopicIds) {
        let meta = topics.get(t);
        if (!meta) {
          const n = numPartitions(t);
          if (n < 0) throw new Error(`Member is subscribed to a non-existent topic ${t}`);
          topics.set(t, (meta = { numPartitions: n, members: 0, next: 0, extra: -1 }));
        }
        meta.members++;
      }
    const out: Record<string, PartitionAssignment> = {};
    for (const m of members) {
      const mine = new Map<string, number[]>();
      for (const t of m.subscribedTopicIds) {
        const meta = topics.get(t)!;
        if (meta.extra < 0) meta.extra = meta.numPartitions % meta.members;
        let quota = Math.floor(meta.numPartitions / meta.members);
        if (meta.extra > 0) {
          quota++;
          meta.extra--;
        }
        const end = Math.min(meta.next + quota, meta.numPartitions);
        const parts: number[] = [];
        for (let p = meta.next; p < end; p++) parts.push(p);
        meta.next = end;
        mine.set(t, parts);
      }
      out[m.memberId] = assignmentOf(mine);
    }
    return out;
  },
};
