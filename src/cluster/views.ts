// Read-only views of the cluster in the shapes the tool formatters take. A view reads state and sends no
// request, so it never moves the simulation (admin.ts and group-admin.ts run requests).
import type { MetadataImage, TopicConfigEntry } from '../../models/metadata/index.ts';
import { formatTopicDescribe } from '../format/index.ts';
import type { Cluster } from './cluster.ts';

/** `kafka-topics --describe` for one topic from a broker's image; throws when the topic does not exist. */
export function describeTopic(
  image: MetadataImage,
  name: string,
  configs: readonly TopicConfigEntry[],
  opts: { elr?: boolean } = {},
): string {
  const t = image.topics[name];
  if (!t) throw new Error(`Topic '${name}' does not exist as expected`);
  return formatTopicDescribe(
    {
      name,
      topicId: t.topicId,
      configs: configs.filter((c) => c.source !== 'DEFAULT_CONFIG').map((c) => [c.name, c.value] as const),
      partitions: t.partitions.map((reg, p) => ({
        partition: p,
        leader: reg.leader,
        replicas: reg.replicas,
        isr: reg.isr,
        addingReplicas: reg.addingReplicas,
        removingReplicas: reg.removingReplicas,
      })),
    },
    opts,
  );
}

/**
 * A group's committed offsets and each partition's log end (high watermark, what ListOffsets latest answers),
 * read straight from the coordinator and the partition logs: no requests, so it does not move the simulation.
 * Conditions checked while the simulation runs (waitUntil) must not send requests: they would run the
 * simulation from inside an event, and perturb the run they observe. The offsets are those
 * kafka-consumer-groups --describe would show for the partitions the group has committed or owns.
 */
export function groupOffsetsNow(
  cluster: Cluster,
  groupId: string,
): { topic: string; partition: number; committedOffset: number | null; logEndOffset: number | null }[] {
  const coordinatorId = cluster.groupCoordinator(groupId);
  const broker = coordinatorId >= 0 ? cluster.brokers.get(coordinatorId) : undefined;
  if (!broker?.up) return [];
  const coordinator = broker.groupCoordinator;
  const committed = coordinator.committedOffsets(groupId) ?? new Map<string, number>();
  const classic = coordinator.group(groupId);
  // A consumer-protocol (KIP-848) group's members own what DescribeGroups lists as their assignment.
  const assignments = classic
    ? [...classic.members.values()].map((m) => m.assignment ?? [])
    : (coordinator.consumerGroup(groupId)?.describe().members ?? []).map((m) => m.assignment ?? []);
  const partitions = groupPartitions(assignments, committed);
  const hw = new Map<string, number>();
  for (const log of cluster.partitionLogs()) hw.set(`${log.topic}\u0000${log.partition}`, log.highWatermark);
  return [...partitions].map(([key, tp]) => ({
    ...tp,
    committedOffset: committed.get(key) ?? null,
    logEndOffset: hw.get(key) ?? null,
  }));
}

/**
 * The partitions kafka-consumer-groups --describe lists for a group: those its members own and those it has
 * committed offsets for, keyed `topic\u0000partition` (the coordinator's key).
 */
export function groupPartitions(
  assignments: readonly (readonly { topic: string; partition: number }[])[],
  committed: ReadonlyMap<string, number>,
): Map<string, { topic: string; partition: number }> {
  const partitions = new Map<string, { topic: string; partition: number }>();
  for (const assignment of assignments)
    for (const tp of assignment) partitions.set(`${tp.topic}\u0000${tp.partition}`, tp);
  for (const key of committed.keys()) {
    const i = key.lastIndexOf('\u0000');
    partitions.set(key, { topic: key.slice(0, i), partition: Number(key.slice(i + 1)) });
  }
  return partitions;
}
