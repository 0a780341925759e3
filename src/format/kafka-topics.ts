// kafka-topics.sh output, byte for byte. Facts: apache/kafka `tools/src/main/java/org/apache/kafka/tools/
// TopicCommand.java` (3.9: TopicDescription/PartitionDescription.printDescription, createTopic, listTopics,
// printException).

import { FormatInputError } from './format-input-error.ts';

export interface PartitionDescribeView {
  readonly partition: number;
  /** Leader broker id; null or -1 when the partition has no leader (printed `none`). */
  readonly leader: number | null;
  readonly replicas: readonly number[];
  readonly isr: readonly number[];
  /** Replicas being added by an ongoing reassignment. */
  readonly addingReplicas?: readonly number[];
  /** Replicas being removed by an ongoing reassignment. */
  readonly removingReplicas?: readonly number[];
  /** Eligible leader replicas (KIP-966); null/absent prints `N/A`. Only shown with `{ elr: true }`. */
  readonly elr?: readonly number[] | null;
  readonly lastKnownElr?: readonly number[] | null;
}

export interface TopicDescribeView {
  readonly name: string;
  /** Base64 topic id; absent, null or the zero UUID (`AAAAAAAAAAAAAAAAAAAAAA`) leaves the field out. */
  readonly topicId?: string | null;
  /**
   * Non-default configs (source other than DEFAULT_CONFIG), printed in the order given, e.g.
   * `[['min.insync.replicas', '1'], ['segment.bytes', '1073741824']]`.
   */
  readonly configs?: ReadonlyArray<readonly [string, string]> | Readonly<Record<string, string>>;
  readonly markedForDeletion?: boolean;
  /** Overrides the replication factor the tool would derive from the first partition. */
  readonly replicationFactor?: number;
  readonly partitions: readonly PartitionDescribeView[];
}

export interface TopicDescribeOptions {
  /**
   * Print `Elr:` and `LastKnownElr:` (TopicCommand 3.9+). Off by default: the AutoMQ describe output of its
   * self-balancing example (https://docs.automq.com/automq/getting-started/example-continuous-data-self-balancing)
   * has none.
   */
  readonly elr?: boolean;
}

const ZERO_UUID = 'AAAAAAAAAAAAAAAAAAAAAA';
const ids = (list: readonly number[]) => list.join(',');

/** TopicCommand.isReassignmentInProgress: a replica of the partition is still being added or removed. */
function isReassigning(p: PartitionDescribeView): boolean {
  const changing = new Set([...(p.addingReplicas ?? []), ...(p.removingReplicas ?? [])]);
  return p.replicas.some((r) => changing.has(r));
}

/** TopicCommand.getReplicationFactor: during a reassignment the target size, not the union being copied to. */
function replicationFactorOf(p: PartitionDescribeView): number {
  return isReassigning(p) ? p.replicas.length - (p.addingReplicas?.length ?? 0) : p.replicas.length;
}

function configEntries(configs: TopicDescribeView['configs']): ReadonlyArray<readonly [string, string]> {
  if (configs === undefined) return [];
  return Array.isArray(configs)
    ? (configs as ReadonlyArray<readonly [string, string]>)
    : Object.entries(configs as Record<string, string>);
}

/**
 * `kafka-topics.sh --describe --topic <t>` for one topic: the topic line, then one tab-led line per partition
 * in partition order. Fields are tab-separated; every line ends with a newline.
 */
export function formatTopicDescribe(topic: TopicDescribeView, opts: TopicDescribeOptions = {}): string {
  if (topic.partitions.length === 0) {
    throw new FormatInputError(
      'invalid-view',
      `topic ${topic.name} has no partitions to describe`,
      'partitions',
    );
  }
  const sorted = [...topic.partitions].sort((a, b) => a.partition - b.partition);
  const deletion = topic.markedForDeletion ? '\tMarkedForDeletion: true' : '';
  const rf = topic.replicationFactor ?? replicationFactorOf(sorted[0]!);
  const configs = configEntries(topic.configs)
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
  const topicId = topic.topicId && topic.topicId !== ZERO_UUID ? `\tTopicId: ${topic.topicId}` : '';
  let out = `Topic: ${topic.name}${topicId}\tPartitionCount: ${sorted.length}\tReplicationFactor: ${rf}`;
  out += `\tConfigs: ${configs}${deletion}\n`;
  for (const p of sorted) {
    const leader = p.leader === null || p.leader < 0 ? 'none' : String(p.leader);
    out += `\tTopic: ${topic.name}\tPartition: ${p.partition}\tLeader: ${leader}`;
    out += `\tReplicas: ${ids(p.replicas)}\tIsr: ${ids(p.isr)}`;
    // The tool prints both lists whenever the partition has an ongoing reassignment; in KRaft that is
    // exactly when one of them is non-empty.
    const adding = p.addingReplicas ?? [];
    const removing = p.removingReplicas ?? [];
    if (adding.length > 0 || removing.length > 0) {
      out += `\tAdding Replicas: ${ids(adding)}\tRemoving Replicas: ${ids(removing)}`;
    }
    if (opts.elr) {
      out += `\tElr: ${p.elr ? ids(p.elr) : 'N/A'}\tLastKnownElr: ${p.lastKnownElr ? ids(p.lastKnownElr) : 'N/A'}`;
    }
    out += `${deletion}\n`;
  }
  return out;
}

/**
 * `kafka-topics.sh --create` success. Topic.hasCollisionChars: a name with '.' or '_' first gets the
 * metric-name collision warning.
 */
export function formatCreatedTopic(name: string): string {
  const warning =
    name.includes('.') || name.includes('_')
      ? "WARNING: Due to limitations in metric names, topics with a period ('.') or underscore ('_') could " +
        'collide. To avoid issues it is best to use either, but not both.\n'
      : '';
  return `${warning}Created topic ${name}.\n`;
}

/** `kafka-topics.sh --list`: names sorted (Java String order = UTF-16 code units), one per line. */
export function formatTopicList(names: readonly string[]): string {
  const sorted = [...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  // String.join("\n", ...) then println: an empty list still prints one empty line.
  return `${sorted.join('\n')}\n`;
}

/** TopicCommand.printException (stdout), e.g. for `Topic 'x' already exists.`. */
export function formatTopicCommandError(message: string): string {
  return `Error while executing topic command : ${message}\n`;
}
