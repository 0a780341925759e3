// kafka-consumer-groups.sh --describe (offsets, --state, --members [--verbose]) exactly as Kafka 3.8/3.9
// prints it. Facts: apache/kafka `tools/src/main/java/org/apache/kafka/tools/consumer/group/
// ConsumerGroupCommand.java` (printOffsets, printOffsetFormat, printMembers, printStates,
// shouldPrintMemberState, printError, collectGroupsOffsets, getLogOffsets).
//
// Behaviours kept on purpose because the tool has them:
// - "does not exist" is printed by printError, which writes to stdout; only "has no active members" and
//   "is rebalancing" go to stderr.
// - offsets view: members with no partitions get no row; members are ordered by partition count (desc,
//   stable); each member's partitions come out of a java.util.HashMap (getLogOffsets' Collectors.toMap), so
//   they print in HashMap order, reproduced here; committed partitions nobody owns come last with `-` for
//   consumer, host and client.
// - members view (3.8+ Java tool): the header is printed even when the group is Empty or Dead.
// - --members --verbose ASSIGNMENT column: `topic(0,1), other(2)` (topics sorted, partitions ascending), as
//   the Scala tool wrote it (KIP-175); the first Java port dropped the topic names and Kafka 4.0 replaced the
//   column with CURRENT-ASSIGNMENT `topic:0,1`; neither is modelled.

import { javaFormat } from './java-format.ts';
import { javaHashOrder, topicPartitionHash } from './java-hash-order.ts';

/** ConsumerGroupState.toString() values. */
export type GroupStateName =
  | 'Stable'
  | 'Empty'
  | 'PreparingRebalance'
  | 'CompletingRebalance'
  | 'Assigning'
  | 'Reconciling'
  | 'Dead'
  | 'Unknown';

export interface GroupTopicPartition {
  readonly topic: string;
  readonly partition: number;
}

export interface GroupMemberView {
  readonly consumerId: string;
  readonly groupInstanceId?: string | null;
  readonly clientId: string;
  /** As the coordinator reports it, e.g. `/127.0.0.1`. */
  readonly host: string;
  readonly assignment: readonly GroupTopicPartition[];
}

export interface GroupPartitionOffsetsView extends GroupTopicPartition {
  /** Committed offset; absent/null when the group has not committed this partition. */
  readonly committedOffset?: number | null;
  /** ListOffsets(latest) = high watermark; absent/null when the tool could not get it. */
  readonly logEndOffset?: number | null;
}

export interface ConsumerGroupView {
  readonly groupId: string;
  /** A group the coordinator does not know is described as Dead. */
  readonly state: GroupStateName;
  readonly coordinator: { readonly id: number; readonly host: string; readonly port: number };
  /** The protocol (assignor) chosen; empty when there is none. */
  readonly assignmentStrategy: string;
  /** The classic group's generation, where the reader knows it (the simulation's own view does). */
  readonly generation?: number;
  /** In the order the coordinator lists them. */
  readonly members: readonly GroupMemberView[];
  /** Offsets of every partition that is assigned or has a committed offset. */
  readonly offsets: readonly GroupPartitionOffsetsView[];
}

/** What the tool writes to each stream. */
export interface ToolOutput {
  readonly stdout: string;
  readonly stderr: string;
}

export const MISSING_COLUMN_VALUE = '-';

type Groups = ConsumerGroupView | readonly ConsumerGroupView[];

/** The tool keeps groups in a TreeMap: sorted by group id (Java String order). */
function sortedGroups(groups: Groups): ConsumerGroupView[] {
  const list = Array.isArray(groups)
    ? [...(groups as readonly ConsumerGroupView[])]
    : [groups as ConsumerGroupView];
  return list.sort((a, b) => (a.groupId < b.groupId ? -1 : a.groupId > b.groupId ? 1 : 0));
}

class Streams {
  stdout = '';
  stderr = '';
  done(): ToolOutput {
    return { stdout: this.stdout, stderr: this.stderr };
  }
}

/** ConsumerGroupCommand.shouldPrintMemberState for a group the admin client described. */
function shouldPrint(out: Streams, g: ConsumerGroupView, rows: number): boolean {
  switch (g.state) {
    case 'Dead':
      out.stdout += `\nError: Consumer group '${g.groupId}' does not exist.\n`;
      return false;
    case 'Empty':
      out.stderr += `\nConsumer group '${g.groupId}' has no active members.\n`;
      break;
    case 'PreparingRebalance':
    case 'CompletingRebalance':
    case 'Assigning':
    case 'Reconciling':
      out.stderr += `\nWarning: Consumer group '${g.groupId}' is rebalancing.\n`;
      break;
    default:
      break;
  }
  return rows > 0;
}

interface OffsetRow {
  readonly topic: string;
  readonly partition: string;
  readonly offset: string;
  readonly logEndOffset: string;
  readonly lag: string;
  readonly consumerId: string;
  readonly host: string;
  readonly clientId: string;
}

const tpKey = (tp: GroupTopicPartition) => `${tp.partition}\u0000${tp.topic}`;
const show = (v: number | null | undefined) =>
  v === null || v === undefined ? MISSING_COLUMN_VALUE : String(v);

/** The rows printOffsets prints for one group, in the tool's order. */
export function consumerGroupOffsetRows(g: ConsumerGroupView): OffsetRow[] {
  const offsets = new Map(g.offsets.map((o) => [tpKey(o), o]));
  const rowsFor = (
    partitions: readonly GroupTopicPartition[],
    consumerId: string,
    host: string,
    clientId: string,
  ): OffsetRow[] => {
    // collectConsumerAssignment sorts by partition (stable), then getLogOffsets rebuilds a HashMap.
    const sorted = [...partitions].sort((a, b) => a.partition - b.partition || (a.topic < b.topic ? -1 : 1));
    return javaHashOrder(sorted, (tp) => topicPartitionHash(tp.topic, tp.partition)).map((tp) => {
      const o = offsets.get(tpKey(tp));
      const committed = o?.committedOffset ?? null;
      const end = o?.logEndOffset ?? null;
      // getLag: no lag without a committed offset (or with -1), or without a log end offset.
      const lag = committed === null || committed === -1 || end === null ? null : end - committed;
      return {
        topic: tp.topic,
        partition: String(tp.partition),
        offset: show(committed),
        logEndOffset: show(end),
        lag: show(lag),
        consumerId,
        host,
        clientId,
      };
    });
  };

  const rows: OffsetRow[] = [];
  const assigned = new Set<string>();
  const owners = g.members
    .filter((m) => m.assignment.length > 0)
    .map((m, i) => ({ m, i }))
    .sort((a, b) => b.m.assignment.length - a.m.assignment.length || a.i - b.i);
  for (const { m } of owners) {
    for (const tp of m.assignment) assigned.add(tpKey(tp));
    rows.push(...rowsFor(m.assignment, m.consumerId, m.host, m.clientId));
  }
  const unowned = g.offsets.filter(
    (o) => o.committedOffset !== null && o.committedOffset !== undefined && !assigned.has(tpKey(o)),
  );
  if (unowned.length > 0) {
    rows.push(...rowsFor(unowned, MISSING_COLUMN_VALUE, MISSING_COLUMN_VALUE, MISSING_COLUMN_VALUE));
  }
  return rows;
}

/** `kafka-consumer-groups.sh --describe [--offsets] --group <g>...`. */
export function formatConsumerGroupOffsets(groups: Groups): ToolOutput {
  const out = new Streams();
  for (const g of sortedGroups(groups)) {
    const rows = consumerGroupOffsetRows(g);
    if (!shouldPrint(out, g, rows.length)) continue;
    const width = (min: number, values: string[]) => Math.max(min, ...values.map((v) => v.length));
    const gw = width(15, [g.groupId]);
    const tw = width(
      15,
      rows.map((r) => r.topic),
    );
    const cw = width(
      15,
      rows.map((r) => r.consumerId),
    );
    const hw = width(
      15,
      rows.map((r) => r.host),
    );
    const format = `\n%-${gw}s %-${tw}s %-10s %-15s %-15s %-15s %-${cw}s %-${hw}s %s`;
    out.stdout += javaFormat(
      format,
      'GROUP',
      'TOPIC',
      'PARTITION',
      'CURRENT-OFFSET',
      'LOG-END-OFFSET',
      'LAG',
      'CONSUMER-ID',
      'HOST',
      'CLIENT-ID',
    );
    for (const r of rows) {
      out.stdout += javaFormat(
        format,
        g.groupId,
        r.topic,
        r.partition,
        r.offset,
        r.logEndOffset,
        r.lag,
        r.consumerId,
        r.host,
        r.clientId,
      );
    }
    out.stdout += '\n';
  }
  return out.done();
}

/** `kafka-consumer-groups.sh --describe --state --group <g>...`. */
export function formatConsumerGroupState(groups: Groups): ToolOutput {
  const out = new Streams();
  for (const g of sortedGroups(groups)) {
    if (!shouldPrint(out, g, 1)) continue;
    const coordinator = `${g.coordinator.host}:${g.coordinator.port}  (${g.coordinator.id})`;
    // The tool sizes the first (GROUP) column from the coordinator string's length; kept as is.
    const format = `\n%-${Math.max(25, coordinator.length)}s %-25s %-20s %-15s %s`;
    out.stdout += javaFormat(format, 'GROUP', 'COORDINATOR (ID)', 'ASSIGNMENT-STRATEGY', 'STATE', '#MEMBERS');
    out.stdout += javaFormat(format, g.groupId, coordinator, g.assignmentStrategy, g.state, g.members.length);
    out.stdout += '\n';
  }
  return out.done();
}

/** The --verbose ASSIGNMENT cell: `topic(0,1), other(2)`, or `-` for no partitions. */
export function formatMemberAssignment(assignment: readonly GroupTopicPartition[]): string {
  if (assignment.length === 0) return MISSING_COLUMN_VALUE;
  const byTopic = new Map<string, number[]>();
  for (const tp of assignment) {
    const list = byTopic.get(tp.topic) ?? [];
    list.push(tp.partition);
    byTopic.set(tp.topic, list);
  }
  return [...byTopic]
    .map(([topic, ps]) => `${topic}(${[...ps].sort((a, b) => a - b).join(',')})`)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    .join(', ');
}

export interface MembersOptions {
  /** `--verbose`: adds the ASSIGNMENT column. */
  readonly verbose?: boolean;
}

/** `kafka-consumer-groups.sh --describe --members [--verbose] --group <g>...`. */
export function formatConsumerGroupMembers(groups: Groups, opts: MembersOptions = {}): ToolOutput {
  const out = new Streams();
  for (const g of sortedGroups(groups)) {
    let gw = 15;
    let cw = 15;
    let iw = 17;
    let hw = 15;
    let clw = 15;
    let withInstanceId = false;
    if (shouldPrint(out, g, g.members.length)) {
      for (const m of g.members) {
        gw = Math.max(gw, g.groupId.length);
        cw = Math.max(cw, m.consumerId.length);
        iw = Math.max(iw, (m.groupInstanceId ?? '').length);
        hw = Math.max(hw, m.host.length);
        clw = Math.max(clw, m.clientId.length);
        withInstanceId ||= (m.groupInstanceId ?? '') !== '';
      }
    }
    const format = withInstanceId
      ? `%-${gw}s %-${cw}s %-${iw}s %-${hw}s %-${clw}s %-15s `
      : `%-${gw}s %-${cw}s %-${hw}s %-${clw}s %-15s `;
    const header = withInstanceId
      ? ['GROUP', 'CONSUMER-ID', 'GROUP-INSTANCE-ID', 'HOST', 'CLIENT-ID', '#PARTITIONS']
      : ['GROUP', 'CONSUMER-ID', 'HOST', 'CLIENT-ID', '#PARTITIONS'];
    out.stdout += `\n${javaFormat(format, ...header)}${opts.verbose ? 'ASSIGNMENT' : ''}\n`;
    for (const m of g.members) {
      const cells = withInstanceId
        ? [g.groupId, m.consumerId, m.groupInstanceId ?? '', m.host, m.clientId, m.assignment.length]
        : [g.groupId, m.consumerId, m.host, m.clientId, m.assignment.length];
      out.stdout += `${javaFormat(format, ...cells)}${opts.verbose ? formatMemberAssignment(m.assignment) : ''}\n`;
    }
  }
  return out.done();
}
