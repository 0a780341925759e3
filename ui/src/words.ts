// Trace events in plain words for the event log ("broker 2 fenced: no heartbeat for 10.0 s"), and which of them
// are markers on the timeline. Kinds this file does not know are shown as their kind and fields (with "all").
import type { TraceEvent } from './model.ts';

/**
 * The kinds the page asks the server for (the live stream's and the download's `kind` prefixes): what this file
 * explains, and nothing of the data plane's per-request traffic, which would cost the server a serialisation
 * per event and the page a parse, for lines it does not show by default.
 */
export const STREAM_KINDS = [
  'node.',
  'controller.',
  'raft.',
  'balancer.',
  'group.',
  'fault.',
  'net.slow',
  'ingest.batch-lost',
  'invariant.',
  'lesson.',
  'scenario.',
].join(',');

export type Category = 'fault' | 'move' | 'election' | 'rebalance' | 'balancer' | 'lesson' | 'other';

export interface Described {
  text: string;
  category: Category;
  /** Shown on the timeline as a marker. */
  marker: boolean;
}

const secs = (ms: unknown) => `${(Number(ms) / 1000).toFixed(1)} s`;
const tp = (e: TraceEvent) => `${String(e.topic)}-${String(e.partition)}`;
const list = (x: unknown) => `[${Array.isArray(x) ? x.join(',') : ''}]`;
const who = (node: string | undefined) => (node ?? '').replace('-', ' ');
const leaderText = (id: unknown) => (Number(id) < 0 ? 'none' : String(id));

/** Why the controller changed a partition (the trace's reason), in words. */
export function reasonText(reason: unknown): string {
  const r = String(reason);
  const fixed: Record<string, string> = {
    reassignment: 'a reassignment',
    'broker-unfenced': 'a broker back in service',
    'controlled-shutdown': 'a controlled shutdown',
    'source-fenced': "the moving replica's broker was fenced",
    'ElectLeaders:PREFERRED': 'a preferred leader election',
    'ElectLeaders:UNCLEAN': 'an unclean leader election (asked for)',
  };
  if (fixed[r]) return fixed[r]!;
  let m = /^broker-fenced:(.*)$/.exec(r);
  if (m) return `a broker fenced (${m[1]!.replace('session-timeout', 'no heartbeat')})`;
  m = /^AlterPartition:(\d+)$/.exec(r);
  if (m) return `the leader, broker ${m[1]}, asked (AlterPartition)`;
  return r;
}

/** When each broker was last heard from, as the controller's session expiry said (for the fence that follows). */
const lastHeard = new Map<number, number>();

/** Returns undefined for routine events left out of the log unless "all" is chosen. */
export function describe(e: TraceEvent): Described | undefined {
  const d = (text: string, category: Category, marker = false): Described => ({ text, category, marker });
  switch (e.kind) {
    case 'node.crash':
      return d(`${who(e.node)} crashed`, 'fault', true);
    case 'node.stop':
      return d(`${who(e.node)} stopped`, 'fault', true);
    case 'node.start':
      return e.incarnation === 1 ? undefined : d(`${who(e.node)} restarted`, 'fault', true);
    case 'controller.session-expired': {
      // lastContactMs is the moment the controller last heard from the broker.
      const silent = typeof e.lastContactMs === 'number' ? e.t - e.lastContactMs : undefined;
      if (silent !== undefined) lastHeard.set(Number(e.brokerId), silent);
      return d(
        `broker ${e.brokerId}: no heartbeat for ${silent !== undefined ? secs(silent) : 'ever'} (broker.session.timeout.ms ${secs(e.sessionTimeoutMs)})`,
        'fault',
      );
    }
    case 'controller.fence': {
      const silent = lastHeard.get(Number(e.brokerId));
      const why =
        e.reason === 'session-timeout'
          ? `no heartbeat${silent !== undefined ? ` for ${secs(silent)}` : ' within the session timeout'}`
          : String(e.reason);
      return d(
        `broker ${e.brokerId} fenced: ${why}; ${e.partitionsChanged} partition(s) change`,
        'election',
        true,
      );
    }
    case 'controller.unfence':
      return d(`broker ${e.brokerId} unfenced (back in service)`, 'election');
    case 'controller.elect': {
      const from =
        Number(e.leader) < 0
          ? ''
          : e.unclean
            ? ' (unclean: not from the ISR, data may be lost)'
            : ' (from ISR)';
      return d(
        `partition ${tp(e)} leader ${leaderText(e.previousLeader)} -> ${leaderText(e.leader)}${from}, ISR ${list(e.isr)}: ${reasonText(e.reason)}`,
        'election',
        true,
      );
    }
    case 'controller.isr':
      return d(
        `partition ${tp(e)} ISR ${list(e.previousIsr)} -> ${list(e.isr)}: ${reasonText(e.reason)}`,
        'election',
      );
    case 'controller.reassign':
      return e.phase === 'await-election' || e.phase === 'start' || e.phase === 'begin'
        ? d(`partition ${tp(e)} moving ${list(e.from)} -> ${list(e.target)}`, 'move', true)
        : d(`partition ${tp(e)} reassignment: ${String(e.phase)} (replicas ${list(e.replicas)})`, 'move');
    case 'controller.create-topics':
      // A refused creation (e.g. __consumer_offsets asked for by a second coordinator) carries the error instead.
      if (typeof e.errorCode === 'number' && e.errorCode !== 0)
        return d(`topic ${e.topic} not created: ${e.errorMessage ?? `error ${e.errorCode}`}`, 'other');
      return d(
        `topic ${e.topic} ${e.validateOnly ? 'could be created' : 'created'}: ${e.numPartitions} partitions, replication factor ${e.replicationFactor}`,
        'other',
        true,
      );
    case 'controller.create-partitions':
      return d(`topic ${e.topic} now has ${e.totalCount ?? e.partitions ?? '?'} partitions`, 'move', true);
    case 'controller.delete-topics':
      return d(`topic ${e.topic ?? list(e.topics)} deleted`, 'other', true);
    case 'raft.leader':
      return d(`${who(e.node)} became the KRaft leader (epoch ${e.epoch})`, 'election', true);
    case 'raft.resign':
      return d(`${who(e.node)} resigned as KRaft leader`, 'election', true);
    case 'raft.unflushed-lost':
      return d(
        `${who(e.node)} lost records it had not flushed (${JSON.stringify(e).slice(0, 80)})`,
        'fault',
        true,
      );
    case 'raft.truncate':
      return d(`${who(e.node)} truncated its log to ${e.offset ?? e.to ?? '?'}`, 'election');
    case 'balancer.detect':
      return d(
        `balancer: detect #${e.sequence}${e.skipped ? ` skipped (${String(e.skipped)})` : ''}`,
        'balancer',
      );
    case 'balancer.violation':
      return d(
        `balancer: broker ${e.brokerId} outside the band (load ${Math.round(Number(e.load) / 1024)} KiB/s, needs ${e.need})`,
        'balancer',
      );
    case 'balancer.plan':
      return Number(e.moves) > 0
        ? d(
            `balancer plans ${e.moves} move(s) in ${(e.batches as unknown[]).length} batch(es)`,
            'balancer',
            true,
          )
        : undefined;
    case 'balancer.execute':
      return d(
        `balancer moves ${(e.moves as { partition: number; srcBrokerId: number; destBrokerId: number }[])
          .map((m) => `${m.partition}: ${m.srcBrokerId}->${m.destBrokerId}`)
          .join(', ')}`,
        'move',
        true,
      );
    case 'balancer.balance-failed':
      return d(`balancer: broker ${e.brokerId} ${String(e.reason)}`, 'balancer');
    case 'group.prepare-rebalance':
      return d(
        `group ${e.groupId ?? e.group}: rebalance (${String(e.reason ?? 'members changed')})`,
        'rebalance',
        true,
      );
    case 'group.stable':
      return d(
        `group ${e.groupId ?? e.group} stable, generation ${e.generation ?? e.generationId ?? '?'}`,
        'rebalance',
        true,
      );
    case 'group.member-added':
      return d(`group ${e.groupId ?? e.group}: member ${e.memberId ?? ''} joined`, 'rebalance');
    case 'group.member-removed':
    case 'group.member-expired':
      return d(
        `group ${e.groupId ?? e.group}: member ${e.memberId ?? ''} left (${e.kind.slice(13)})`,
        'rebalance',
      );
    case 'fault.request-rule':
      return d(`request fault rule: ${JSON.stringify(e).slice(30, 130)}`, 'fault', true);
    case 'net.slow':
      return d(`${who(e.node)} slowed`, 'fault', true);
    case 'ingest.batch-lost':
      return d(`ingest: a batch was lost (${JSON.stringify(e).slice(30, 120)})`, 'fault', true);
    case 'invariant.violated':
      return d(`INVARIANT VIOLATED: ${String(e.message ?? e.name ?? '')}`, 'fault', true);
    case 'scenario.step':
    case 'lesson.step':
      return d(`lesson step ${Number(e.index) + 1}: ${String(e.note ?? e.action)}`, 'lesson', true);
    default:
      return undefined;
  }
}

/** Any event, in words if known, else its kind and fields. */
export function describeAny(e: TraceEvent): Described {
  const known = describe(e);
  if (known) return known;
  const { t: _t, kind, node, ...rest } = e;
  return {
    text: `${kind}${node ? ` ${node}` : ''} ${JSON.stringify(rest).slice(0, 140)}`,
    category: 'other',
    marker: false,
  };
}
