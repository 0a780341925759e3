// kafka-reassign-partitions.sh: reading the reassignment JSON file and the text the tool prints for
// --generate, --execute and --verify. Facts: apache/kafka `tools/src/main/java/org/apache/kafka/tools/
// reassign/ReassignPartitionsCommand.java` (parsePartitionReassignmentData, parseExecuteAssignmentArgs,
// formatAsReassignmentJson, currentPartitionReplicaAssignmentToString, executeAssignment,
// partitionReassignmentStatesToString, clearAllThrottles, generateAssignment).

import { FormatInputError } from './format-input-error.ts';
import { javaHashOrder, javaIntegerHash, javaStringHash } from './java-hash-order.ts';
import { describePosition, type JsonNode, parseJson, positionOf } from './json-source.ts';

export interface ReassignmentEntry {
  readonly topic: string;
  readonly partition: number;
  readonly replicas: readonly number[];
  /** One log dir per replica; `any` lets the broker choose. Absent means all `any`. */
  readonly log_dirs?: readonly string[];
}

export interface ReassignmentJson {
  readonly version: 1;
  readonly partitions: readonly ReassignmentEntry[];
}

export interface TopicPartitionRef {
  readonly topic: string;
  readonly partition: number;
}

/** The log dir Kafka writes (and reads) for "let the broker choose". */
export const ANY_LOG_DIR = 'any';

const INT_MIN = -2147483648;
const INT_MAX = 2147483647;

/** Kafka's TopicPartition.toString: `topic-partition`. */
export const tpString = (tp: TopicPartitionRef): string => `${tp.topic}-${tp.partition}`;

/** ReassignPartitionsCommand.compareTopicPartitions: topic (Java String order), then partition. */
export function compareTopicPartitions(a: TopicPartitionRef, b: TopicPartitionRef): number {
  if (a.topic !== b.topic) return a.topic < b.topic ? -1 : 1;
  return a.partition - b.partition;
}

function kindOf(node: JsonNode): string {
  if (node.kind === 'number') return /^-?\d+$/.test(node.raw) ? 'integer' : 'number';
  return node.kind;
}

/**
 * Reads a reassignment JSON file (`{"version":1,"partitions":[{"topic":..,"partition":..,"replicas":[..],
 * "log_dirs":[..]}]}`) and validates it as `--execute` does. Unknown fields are ignored, as Kafka does.
 * Every problem throws FormatInputError naming the rule broken, the JSON path and, for problems tied to one
 * value, its line and column. Where Kafka has a message for the rule, the message starts with Kafka's words.
 */
export function parseReassignmentJson(text: string): ReassignmentJson {
  const root = parseJson(text);
  const at = (node: { offset: number }) => describePosition(positionOf(text, node.offset));
  const typeError = (path: string, expected: string, node: JsonNode): never => {
    throw new FormatInputError(
      'type',
      `${path} must be ${expected}, found ${kindOf(node)} (${at(node)})`,
      path,
      positionOf(text, node.offset),
    );
  };
  const field = (obj: JsonNode & { kind: 'object' }, key: string): JsonNode | undefined =>
    // Jackson keeps the last of repeated keys.
    obj.entries.findLast((e) => e.key === key)?.value;
  const required = (obj: JsonNode & { kind: 'object' }, path: string, key: string): JsonNode => {
    const v = field(obj, key);
    if (v === undefined) {
      throw new FormatInputError(
        'missing-field',
        `${path} is missing required field "${key}" (${at(obj)})`,
        `${path}.${key}`,
        positionOf(text, obj.offset),
      );
    }
    return v;
  };
  const int = (node: JsonNode, path: string): number => {
    if (
      node.kind !== 'number' ||
      kindOf(node) !== 'integer' ||
      node.value < INT_MIN ||
      node.value > INT_MAX
    ) {
      return typeError(path, 'an integer', node);
    }
    return node.value;
  };

  if (root.kind !== 'object') return typeError('$', 'an object', root);
  const versionNode = field(root, 'version');
  const version = versionNode === undefined ? 1 : int(versionNode, 'version');
  if (version !== 1) {
    throw new FormatInputError(
      'unsupported-version',
      `Not supported version field value ${version}`,
      'version',
      positionOf(text, versionNode!.offset),
    );
  }

  const partitions: ReassignmentEntry[] = [];
  const partitionsNode = field(root, 'partitions');
  let list: readonly JsonNode[] = [];
  if (partitionsNode !== undefined) {
    if (partitionsNode.kind !== 'array') return typeError('partitions', 'an array', partitionsNode);
    list = partitionsNode.items;
  }

  for (const [index, item] of list.entries()) {
    const path = `partitions[${index}]`;
    if (item.kind !== 'object') return typeError(path, 'an object', item);
    const topicNode = required(item, path, 'topic');
    if (topicNode.kind !== 'string') return typeError(`${path}.topic`, 'a string', topicNode);
    const partition = int(required(item, path, 'partition'), `${path}.partition`);
    const replicasNode = required(item, path, 'replicas');
    if (replicasNode.kind !== 'array')
      return typeError(`${path}.replicas`, 'an array of integers', replicasNode);
    const replicas = replicasNode.items.map((r, i) => int(r, `${path}.replicas[${i}]`));
    const logDirsNode = field(item, 'log_dirs');
    let logDirs: string[] | undefined;
    if (logDirsNode !== undefined) {
      if (logDirsNode.kind !== 'array')
        return typeError(`${path}.log_dirs`, 'an array of strings', logDirsNode);
      logDirs = logDirsNode.items.map((d, i) =>
        d.kind === 'string' ? d.value : typeError(`${path}.log_dirs[${i}]`, 'a string', d),
      );
      if (logDirs.length !== replicas.length) {
        throw new FormatInputError(
          'log-dirs-length',
          `Size of replicas list [${replicas.join(', ')}] is different from size of log dirs list ` +
            `[${logDirs.join(', ')}] for partition ${topicNode.value}-${partition} (${path}.log_dirs, ${at(logDirsNode)})`,
          `${path}.log_dirs`,
          positionOf(text, logDirsNode.offset),
        );
      }
    }
    const entry: ReassignmentEntry = { topic: topicNode.value, partition, replicas };
    partitions.push(logDirs === undefined ? entry : { ...entry, log_dirs: logDirs });
  }

  // The checks parseExecuteAssignmentArgs makes after parsing, in its order.
  if (partitions.length === 0) {
    throw new FormatInputError(
      'empty-partitions',
      'Partition reassignment list cannot be empty',
      'partitions',
    );
  }
  const emptyAt = partitions.findIndex((p) => p.replicas.length === 0);
  if (emptyAt >= 0) {
    throw new FormatInputError(
      'empty-replicas',
      `Partition replica list cannot be empty: ${tpString(partitions[emptyAt]!)} (partitions[${emptyAt}].replicas)`,
      `partitions[${emptyAt}].replicas`,
    );
  }
  const firstSeen = new Map<string, number>();
  const duplicated: string[] = [];
  let firstDuplicateAt = -1;
  partitions.forEach((p, i) => {
    const key = tpString(p);
    const seen = firstSeen.get(key);
    if (seen === undefined) firstSeen.set(key, i);
    else {
      if (!duplicated.includes(key)) duplicated.push(key);
      if (firstDuplicateAt < 0) firstDuplicateAt = i;
    }
  });
  if (duplicated.length > 0) {
    const dup = partitions[firstDuplicateAt]!;
    throw new FormatInputError(
      'duplicate-partition',
      `Partition reassignment contains duplicate topic partitions: ${duplicated.join(',')} ` +
        `(partitions[${firstSeen.get(tpString(dup))}] and partitions[${firstDuplicateAt}])`,
      `partitions[${firstDuplicateAt}]`,
    );
  }
  const replicaDuplicates = partitions
    .map((p, i) => ({ p, i, dups: [...new Set(p.replicas.filter((r, j) => p.replicas.indexOf(r) !== j))] }))
    .filter((d) => d.dups.length > 0);
  if (replicaDuplicates.length > 0) {
    const detail = replicaDuplicates
      .map((d) => `${tpString(d.p)} contains multiple entries for ${d.dups.join(',')}`)
      .join('. ');
    const first = replicaDuplicates[0]!;
    throw new FormatInputError(
      'duplicate-replica',
      `Partition replica lists may not contain duplicate entries: ${detail} (partitions[${first.i}].replicas)`,
      `partitions[${first.i}].replicas`,
    );
  }
  return { version: 1, partitions };
}

/**
 * The JSON the tool prints (Jackson, compact): `version` then `partitions`, partitions sorted by topic then
 * partition, each with topic, partition, replicas and log_dirs; a replica without a chosen dir gets `any`.
 */
export function formatReassignmentJson(assignment: ReassignmentJson | readonly ReassignmentEntry[]): string {
  const entries = Array.isArray(assignment)
    ? (assignment as readonly ReassignmentEntry[])
    : (assignment as ReassignmentJson).partitions;
  const partitions = [...entries].sort(compareTopicPartitions).map((p) => ({
    topic: p.topic,
    partition: p.partition,
    replicas: [...p.replicas],
    log_dirs: p.replicas.map((_, i) => p.log_dirs?.[i] ?? ANY_LOG_DIR),
  }));
  return JSON.stringify({ version: 1, partitions });
}

/** `--generate`: the current assignment of the topics, then the proposal. */
export function formatGenerate(
  current: readonly ReassignmentEntry[],
  proposed: readonly ReassignmentEntry[],
): string {
  const strip = (list: readonly ReassignmentEntry[]) =>
    list.map((p) => ({ topic: p.topic, partition: p.partition, replicas: p.replicas }));
  // generateAssignment passes no log dirs, so both documents say `any` throughout.
  return (
    `Current partition replica assignment\n${formatReassignmentJson(strip(current))}\n\n` +
    `Proposed partition reassignment configuration\n${formatReassignmentJson(strip(proposed))}\n`
  );
}

export interface ExecuteOptions {
  /** `--throttle`: the inter-broker throttle in B/s; absent or negative means none was set. */
  readonly interBrokerThrottle?: number;
  /** `--replica-alter-log-dirs-throttle` in B/s; absent or negative means none was set. */
  readonly logDirThrottle?: number;
}

const plural = (n: number) => (n === 1 ? '' : 's');

/**
 * `--execute` after the reassignment was accepted: the rollback JSON (current replicas of the partitions
 * being moved), the throttle lines when throttles were given, then the success line with Kafka's
 * singular/plural. `current` may hold more partitions than are moved: like the tool, only moved ones print.
 */
export function formatExecute(
  current: readonly ReassignmentEntry[],
  proposedTopicPartitions: readonly TopicPartitionRef[],
  opts: ExecuteOptions = {},
): string {
  const moving = new Set(proposedTopicPartitions.map(tpString));
  const rollback = current
    .filter((p) => moving.has(tpString(p)))
    .map((p) => ({ topic: p.topic, partition: p.partition, replicas: p.replicas }));
  let out =
    `Current partition replica assignment\n\n${formatReassignmentJson(rollback)}\n\n` +
    'Save this to use as the --reassignment-json-file option during rollback\n';
  const interBroker = opts.interBrokerThrottle ?? -1;
  const logDir = opts.logDirThrottle ?? -1;
  if (interBroker >= 0 || logDir >= 0) {
    out +=
      'Warning: You must run --verify periodically, until the reassignment completes, to ensure the throttle is removed.\n';
    if (interBroker >= 0) out += `The inter-broker throttle limit was set to ${interBroker} B/s\n`;
    if (logDir >= 0) out += `The replica-alter-dir throttle limit was set to ${logDir} B/s\n`;
  }
  const unique = [...new Map(proposedTopicPartitions.map((tp) => [tpString(tp), tp])).values()];
  const names = unique.sort(compareTopicPartitions).map(tpString).join(',');
  return `${out}Successfully started partition reassignment${plural(unique.length)} for ${names}\n`;
}

export interface PartitionReassignmentStatus extends TopicPartitionRef {
  /** Replicas the cluster has now (during a reassignment: the full set being copied to). */
  readonly currentReplicas: readonly number[];
  /** Replicas the JSON file asks for. */
  readonly targetReplicas: readonly number[];
  /** False while the partition still has an ongoing reassignment. */
  readonly done: boolean;
}

/**
 * Throttles `--verify` clears once nothing is moving (and `--preserve-throttles` was not given): every broker
 * of the cluster plus every target replica, and every topic in the file. Pass null when none are cleared.
 */
export interface ThrottleClearing {
  readonly brokers: readonly number[];
  readonly topics: readonly string[];
}

function hashSetOrder<T>(values: readonly T[], hash: (v: T) => number): T[] {
  return javaHashOrder([...new Set(values)], hash);
}

/**
 * `--verify`: the status block (sorted by topic, partition), the (empty) log-dir move block the tool prints
 * as an empty line when the file names no log dirs, then the throttle-clearing lines. Brokers and topics
 * come out of Java HashSets, so they print in HashSet order (ascending for small broker ids).
 */
export function formatVerify(
  statuses: readonly PartitionReassignmentStatus[],
  throttleInfo: ThrottleClearing | null,
): string {
  const lines = ['Status of partition reassignment:'];
  for (const s of [...statuses].sort(compareTopicPartitions)) {
    const tp = tpString(s);
    if (!s.done) lines.push(`Reassignment of partition ${tp} is still in progress.`);
    else if (s.currentReplicas.join(',') === s.targetReplicas.join(',')) {
      lines.push(`Reassignment of partition ${tp} is completed.`);
    } else {
      lines.push(
        `There is no active reassignment of partition ${tp}, but replica set is ` +
          `${s.currentReplicas.join(',')} rather than ${s.targetReplicas.join(',')}.`,
      );
    }
  }
  let out = `${lines.join('\n')}\n\n`;
  if (throttleInfo) {
    const brokers = hashSetOrder(throttleInfo.brokers, javaIntegerHash);
    const topics = hashSetOrder(throttleInfo.topics, javaStringHash);
    out += `Clearing broker-level throttles on broker${plural(brokers.length)} ${brokers.join(',')}\n`;
    out += `Clearing topic-level throttles on topic${plural(topics.length)} ${topics.join(',')}\n`;
  }
  return out;
}
