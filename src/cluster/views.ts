// Read-only views of the cluster in the shapes the tool formatters take.
import type { MetadataImage, TopicConfigEntry } from '../../models/metadata/index.ts';
import { formatTopicDescribe } from '../format/index.ts';

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
