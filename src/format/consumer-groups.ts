// kafka-consumer-groups.sh --describe (offsets, --state [--verbose], --members [--verbose]) exactly as the tool
// prints it, in two layouts:
// - 'kafka-3.9': Kafka 3.8/3.9's tool, which describes classic groups only.
// - 'kafka-4': Kafka 4.x's tool (the first to describe a consumer-protocol group, KIP-848): --state gains
//   GROUP-EPOCH and TARGET-ASSIGNMENT-EPOCH with --verbose, --members --verbose prints CURRENT-EPOCH,
//   CURRENT-ASSIGNMENT `topic:0,1;other:2`, TARGET-EPOCH and TARGET-ASSIGNMENT (and UPGRADED for a group being
//   migrated, with members of both protocols), the GROUP column is as wide as the group id, and each member's
//   partitions print sorted by topic and partition.
// Facts: apache/kafka `tools/src/main/java/org/apache/kafka/tools/consumer/group/ConsumerGroupCommand.java`
// (printOffsets, printOffsetFormat, printMembers, printMembersHelper, getAssignmentString, printStates,
// shouldPrintMemberState, printError, collectGroupsOffsets, describePartitions, getLogOffsets), at 3.9 and at trunk.
//
// Behaviours kept on purpose because the tool has them:
// - "does not exist" is printed by printError, which writes to stdout; only "has no active members" and
//   "is rebalancing" go to stderr.
// - offsets view: members with no partitions get no row; members are ordered by partition count (desc,
//   stable); in 3.9 each member's partitions come out of a java.util.HashMap (getLogOffsets' Collectors.toMap), so
//   they print in HashMap order, reproduced here; committed partitions nobody owns come last with `-` for
//   consumer, host and client.
// - members view (3.8+ Java tool): the header is printed even when the group is Empty or Dead.
// - 3.9's --members --verbose ASSIGNMENT column: `topic(0,1), other(2)` (topics sorted, partitions ascending), as
//   the Scala tool wrote it (KIP-175).
// - 3.9's --state sizes the GROUP column from the coordinator string; 4.x from the group id.

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
  /** A consumer-protocol group's member (ConsumerGroupDescribe): its member epoch. Absent in a classic group. */
  readonly memberEpoch?: number | null;
  /** A consumer-protocol group's member: the target assignment the coordinator's assignor gave it. */
  readonly targetAssignment?: readonly GroupTopicPartition[] | null;
  /**
   * A consumer-protocol group's member: true when it speaks the consumer protocol, false while it still uses the
   * classic one in a group being migrated (Admin's MemberDescription.upgraded).
   */
  readonly upgraded?: boolean | null;
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
  /** The group's protocol as ListGroups' GroupType names it; absent means classic. */
  readonly type?: 'classic' | 'consumer';
  /** A consumer-protocol group's group epoch; absent for a classic group. */
  readonly groupEpoch?: number | null;
  /** A consumer-protocol group's target assignment epoch; absent for a classic group. */
  readonly targetAssignmentEpoch?: number | null;
}

/** Which tool's layout: Kafka 3.8/3.9's (classic groups only) or Kafka 4.x's. */
export type ConsumerGroupsLayout = 'kafka-3.9' | 'kafka-4';

export interface DescribeLayoutOptions {
  /** The layout; by default Kafka 4.x's when a group described is a consumer-protocol group, else 3.9's. */
  readonly layout?: ConsumerGroupsLayout;
}

/**
 * The layout a describe prints in when none is asked for: a consumer-protocol group can only be described by a
 * Kafka 4.x tool, so any such group among those described selects 4.x's layout for all of them.
 */
export function defaultLayout(groups: Groups): ConsumerGroupsLayout {
  return sortedGroups(groups).some((g) => g.type === 'consumer') ? 'kafka-4' : 'kafka-3.9';
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
export function consumerGroupOffsetRows(
  g: ConsumerGroupView,
  layout: ConsumerGroupsLayout = 'kafka-3.9',
): OffsetRow[] {
  const offsets = new Map(g.offsets.map((o) => [tpKey(o), o]));
  const rowsFor = (
    partitions: readonly GroupTopicPartition[],
    consumerId: string,
    host: string,
    clientId: string,
  ): OffsetRow[] => {
    // 3.9: collectConsumerAssignment sorts by partition (stable), then getLogOffsets rebuilds a HashMap.
    // 4.x: describePartitions sorts the rows by topic, then partition.
    const ordered =
      layout === 'kafka-4'
        ? [...partitions].sort((a, b) => compareJava(a.topic, b.topic) || a.partition - b.partition)
        : javaHashOrder(
            [...partitions].sort((a, b) => a.partition - b.partition || (a.topic < b.topic ? -1 : 1)),
            (tp) => topicPartitionHash(tp.topic, tp.partition),
          );
    return ordered.map((tp) => {
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
export function formatConsumerGroupOffsets(groups: Groups, opts: DescribeLayoutOptions = {}): ToolOutput {
  const out = new Streams();
  const layout = opts.layout ?? defaultLayout(groups);
  for (const g of sortedGroups(groups)) {
    const rows = consumerGroupOffsetRows(g, layout);
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

export interface StateOptions extends DescribeLayoutOptions {
  /** `--verbose` (Kafka 4.x): adds GROUP-EPOCH and TARGET-ASSIGNMENT-EPOCH. */
  readonly verbose?: boolean;
}

/** `kafka-consumer-groups.sh --describe --state [--verbose] --group <g>...`. */
export function formatConsumerGroupState(groups: Groups, opts: StateOptions = {}): ToolOutput {
  const out = new Streams();
  const layout = opts.verbose ? 'kafka-4' : (opts.layout ?? defaultLayout(groups));
  for (const g of sortedGroups(groups)) {
    if (!shouldPrint(out, g, 1)) continue;
    const coordinator = `${g.coordinator.host}:${g.coordinator.port}  (${g.coordinator.id})`;
    const coordinatorWidth = Math.max(25, coordinator.length);
    if (layout === 'kafka-3.9') {
      // The 3.9 tool sizes the first (GROUP) column from the coordinator string's length; kept as is.
      const format = `\n%-${coordinatorWidth}s %-25s %-20s %-15s %s`;
      out.stdout += javaFormat(
        format,
        'GROUP',
        'COORDINATOR (ID)',
        'ASSIGNMENT-STRATEGY',
        'STATE',
        '#MEMBERS',
      );
      out.stdout += javaFormat(
        format,
        g.groupId,
        coordinator,
        g.assignmentStrategy,
        g.state,
        g.members.length,
      );
    } else {
      const head = `\n%-${Math.max(15, g.groupId.length)}s %-${coordinatorWidth}s %-20s %-20s`;
      const strategy = g.assignmentStrategy === '' ? MISSING_COLUMN_VALUE : g.assignmentStrategy;
      const row = [g.groupId, coordinator, strategy, g.state];
      const header = ['GROUP', 'COORDINATOR (ID)', 'ASSIGNMENT-STRATEGY', 'STATE'];
      if (opts.verbose) {
        const format = `${head} %-15s %-25s %s`;
        out.stdout += javaFormat(format, ...header, 'GROUP-EPOCH', 'TARGET-ASSIGNMENT-EPOCH', '#MEMBERS');
        out.stdout += javaFormat(
          format,
          ...row,
          show(g.groupEpoch),
          show(g.targetAssignmentEpoch),
          g.members.length,
        );
      } else {
        out.stdout += javaFormat(`${head} %s`, ...header, '#MEMBERS');
        out.stdout += javaFormat(`${head} %s`, ...row, g.members.length);
      }
    }
    out.stdout += '\n';
  }
  return out.done();
}

/** Java's String.compareTo (UTF-16 code units), as the tool's sorted() uses. */
const compareJava = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * An assignment cell: each topic's partitions ascending, joined by `partitionsOf`, the topics' texts sorted and
 * joined by `between`; `-` for no partitions.
 */
function assignmentCell(
  assignment: readonly GroupTopicPartition[] | null | undefined,
  partitionsOf: (topic: string, partitions: string) => string,
  between: string,
): string {
  if (!assignment || assignment.length === 0) return MISSING_COLUMN_VALUE;
  const byTopic = new Map<string, number[]>();
  for (const tp of assignment) {
    const list = byTopic.get(tp.topic) ?? [];
    list.push(tp.partition);
    byTopic.set(tp.topic, list);
  }
  return [...byTopic]
    .map(([topic, ps]) => partitionsOf(topic, [...ps].sort((a, b) => a - b).join(',')))
    .sort(compareJava)
    .join(between);
}

/** Kafka 4.x's assignment cell (getAssignmentString): `topic:0,1;other:2`, topics sorted, or `-` for none. */
export function formatAssignmentKafka4(
  assignment: readonly GroupTopicPartition[] | null | undefined,
): string {
  return assignmentCell(assignment, (topic, ps) => `${topic}:${ps}`, ';');
}

/** The 3.9 tool's --verbose ASSIGNMENT cell: `topic(0,1), other(2)`, or `-` for no partitions. */
export function formatMemberAssignment(assignment: readonly GroupTopicPartition[]): string {
  return assignmentCell(assignment, (topic, ps) => `${topic}(${ps})`, ', ');
}

export interface MembersOptions extends DescribeLayoutOptions {
  /** `--verbose`: adds the ASSIGNMENT column (3.9), the epochs and assignments (4.x). */
  readonly verbose?: boolean;
}

/** Columns after the ones every member row has: their header and each member's cells. */
interface ExtraColumns {
  readonly header: string;
  cells(m: GroupMemberView): string;
}

/** The 3.9 tool's --verbose column. */
const ASSIGNMENT_COLUMN: ExtraColumns = {
  header: 'ASSIGNMENT',
  cells: (m) => formatMemberAssignment(m.assignment),
};

/**
 * Kafka 4.x's --verbose columns: each member's epoch and current assignment, the group's target epoch and the
 * member's target, and UPGRADED only for a group being migrated (members of both protocols in it). The widths, as
 * the tool's, come from the members only when the group's rows are printed.
 */
function kafka4Columns(g: ConsumerGroupView, printed: boolean): ExtraColumns {
  let currentWidth = 20;
  let targetWidth = 20;
  let hasClassic = false;
  let hasConsumer = false;
  if (printed)
    for (const m of g.members) {
      currentWidth = Math.max(currentWidth, formatAssignmentKafka4(m.assignment).length);
      targetWidth = Math.max(targetWidth, formatAssignmentKafka4(m.targetAssignment).length);
      hasClassic ||= m.upgraded === false;
      hasConsumer ||= m.upgraded === true;
    }
  const migrating = hasClassic && hasConsumer;
  const format = `%-15s %-${currentWidth}s %-15s %-${targetWidth}s${migrating ? ' %s' : ''}`;
  const upgraded = (m: GroupMemberView) =>
    m.upgraded === null || m.upgraded === undefined ? MISSING_COLUMN_VALUE : String(m.upgraded);
  return {
    header: javaFormat(
      format,
      'CURRENT-EPOCH',
      'CURRENT-ASSIGNMENT',
      'TARGET-EPOCH',
      'TARGET-ASSIGNMENT',
      ...(migrating ? ['UPGRADED'] : []),
    ),
    cells: (m) =>
      javaFormat(
        format,
        show(m.memberEpoch),
        formatAssignmentKafka4(m.assignment),
        show(g.targetAssignmentEpoch),
        formatAssignmentKafka4(m.targetAssignment),
        ...(migrating ? [upgraded(m)] : []),
      ),
  };
}

/**
 * `kafka-consumer-groups.sh --describe --members [--verbose] --group <g>...` (printMembers): the columns both
 * layouts print, each as wide as its longest value (GROUP-INSTANCE-ID only when a member has one), then with
 * --verbose the layout's own.
 */
export function formatConsumerGroupMembers(groups: Groups, opts: MembersOptions = {}): ToolOutput {
  const layout = opts.layout ?? defaultLayout(groups);
  const out = new Streams();
  for (const g of sortedGroups(groups)) {
    let gw = 15;
    let cw = 15;
    let iw = 17;
    let hw = 15;
    let clw = 15;
    let withInstanceId = false;
    const printed = shouldPrint(out, g, g.members.length);
    if (printed) {
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
    const extra = opts.verbose
      ? layout === 'kafka-4'
        ? kafka4Columns(g, printed)
        : ASSIGNMENT_COLUMN
      : undefined;
    out.stdout += `\n${javaFormat(format, ...header)}${extra?.header ?? ''}\n`;
    for (const m of g.members) {
      const cells = withInstanceId
        ? [g.groupId, m.consumerId, m.groupInstanceId ?? '', m.host, m.clientId, m.assignment.length]
        : [g.groupId, m.consumerId, m.host, m.clientId, m.assignment.length];
      out.stdout += `${javaFormat(format, ...cells)}${extra?.cells(m) ?? ''}\n`;
    }
  }
  return out.done();
}
