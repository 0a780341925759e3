// A rolling restart of every member of a consumer group, under either group protocol: each member in turn closes
// (LeaveGroup, or a ConsumerGroupHeartbeat with epoch -1) and a new process with the same settings joins; the next
// member goes once every partition is owned again. Measured on every trace event: for each partition, the time
// nobody owned it (it was paused). Classic with Java's default range assignor is eager: every leave and every
// join stops all members; KIP-848's coordinator moves only the leaving member's partitions. Used by
// test/cluster/group-rolling-restart.test.ts and scripts/group-rolling-restart.ts (the sweep).
import type { ClientFlavour, GroupConsumer } from '../../models/clients/index.ts';
import { createCluster } from './cluster.ts';

export interface RollingRestartOptions {
  protocol: 'classic' | 'consumer';
  members: number;
  partitions: number;
  seed?: number;
  flavour?: ClientFlavour;
  /** Virtual ms between a member's replacement being settled and the next member's restart. */
  gapMs?: number;
}

export interface RollingRestartResult {
  /** Virtual ms from the first close to the group settled after the last join. */
  rollMs: number;
  /** Partitions that were unowned at some moment of the roll. */
  pausedPartitions: number;
  /** Sum over partitions of the time each was unowned, ms. */
  pausedPartitionMs: number;
  /** The longest single stretch a partition was unowned, ms. */
  longestPauseMs: number;
  /** Time during which no partition at all was owned (the whole group stopped), ms. */
  allPausedMs: number;
  /** Moments a partition was owned by two live members (must stay 0). */
  doubleOwned: number;
}

export function rollingRestart(o: RollingRestartOptions): RollingRestartResult {
  const c = createCluster({ seed: o.seed ?? 1, brokers: 3, storage: 'shared' });
  c.admin.createTopic({ name: 'events', partitions: o.partitions });
  let n = 0;
  const join = () =>
    c.groupConsumer(`m${n++}`, {
      flavour: o.flavour ?? 'java',
      groupId: 'app',
      topics: ['events'],
      config: { 'group.protocol': o.protocol, 'auto.offset.reset': 'earliest' },
    });
  const live: GroupConsumer[] = Array.from({ length: o.members }, join);
  const fair = Math.floor(o.partitions / o.members);
  const settled = () => {
    const owned = live.flatMap((m) => m.ownedPartitions().map((tp) => tp.partition));
    return (
      owned.length === o.partitions &&
      new Set(owned).size === o.partitions &&
      live.every((m) => m.ownedPartitions().length >= fair)
    );
  };
  c.runUntil(settled, { timeout: '120s', description: 'the group formed' });
  c.runFor('10s');

  let measuring = false;
  let doubleOwned = 0;
  const unownedSince = new Map<number, number>();
  const paused = new Set<number>();
  let pausedPartitionMs = 0;
  let longestPauseMs = 0;
  let allPausedSince: number | undefined;
  let allPausedMs = 0;
  const observe = () => {
    if (!measuring) return;
    const owners = new Map<number, number>();
    for (const m of live)
      for (const tp of m.ownedPartitions()) owners.set(tp.partition, (owners.get(tp.partition) ?? 0) + 1);
    for (let p = 0; p < o.partitions; p++) {
      const count = owners.get(p) ?? 0;
      if (count > 1) doubleOwned++;
      const since = unownedSince.get(p);
      if (count === 0 && since === undefined) {
        unownedSince.set(p, c.now);
        paused.add(p);
      } else if (count > 0 && since !== undefined) {
        pausedPartitionMs += c.now - since;
        longestPauseMs = Math.max(longestPauseMs, c.now - since);
        unownedSince.delete(p);
      }
    }
    if (unownedSince.size === o.partitions) allPausedSince ??= c.now;
    else if (allPausedSince !== undefined) {
      allPausedMs += c.now - allPausedSince;
      allPausedSince = undefined;
    }
  };
  c.sim.trace.subscribe(observe);
  const start = c.now;
  measuring = true;
  for (let i = 0; i < o.members; i++) {
    const leaving = live.shift()!;
    leaving.close();
    live.push(join());
    c.runUntil(settled, { timeout: '300s', description: `the group settled after restarting member ${i}` });
    if (i < o.members - 1) c.runFor(o.gapMs ?? 2000);
  }
  const rollMs = c.now - start;
  observe();
  measuring = false;
  return {
    rollMs,
    pausedPartitions: paused.size,
    pausedPartitionMs: Math.round(pausedPartitionMs),
    longestPauseMs: Math.round(longestPauseMs),
    allPausedMs: Math.round(allPausedMs),
    doubleOwned,
  };
}
