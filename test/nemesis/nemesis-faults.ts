// The nemesis: random faults from the run's own seeded stream, as Jepsen's nemeses inject them. Each step picks
// one fault among those Kafka is meant to survive: a broker or controller crash and later restart, a symmetric
// network split, an asymmetric cut (one node's outbound to a set), a partition leader cut from its followers, a
// slow broker, random message drops, and a heal. `healAll` ends every fault and restarts every node.
import type { Broker } from '../../models/broker/index.ts';
import { brokerNodeId } from '../../models/protocol/index.ts';
import type { NodeId, RandomStream } from '../../models/sim/index.ts';
import type { Cluster } from '../../src/cluster/index.ts';

/** Every kind of fault, sorted. */
export const ALL_FAULTS = [
  'crash-broker',
  'crash-controller',
  'cut-outbound',
  'drop-messages',
  'heal',
  'isolate-leader',
  'restart-broker',
  'restart-controller',
  'slow-broker',
  'split',
] as const;

export type FaultKind = (typeof ALL_FAULTS)[number];

export interface FaultRecord {
  t: number;
  kind: FaultKind;
  detail: string;
}

export class Nemesis {
  readonly log: FaultRecord[] = [];
  private readonly slow = new Set<NodeId>();

  constructor(
    private readonly c: Cluster,
    private readonly rng: RandomStream,
    private readonly topic: string,
  ) {}

  private note(kind: FaultKind, detail: string): void {
    this.log.push({ t: Math.round(this.c.now), kind, detail });
  }

  private brokers(up: boolean): Broker[] {
    return [...this.c.brokers.values()].filter((b) => b.up === up);
  }

  /** One random fault, now. */
  step(): void {
    const c = this.c;
    const net = c.sim.network;
    const kind = this.rng.weightedPick<FaultKind>(
      [
        'crash-broker',
        'restart-broker',
        'crash-controller',
        'restart-controller',
        'split',
        'cut-outbound',
        'isolate-leader',
        'slow-broker',
        'drop-messages',
        'heal',
      ],
      [3, 3, 1, 1, 2, 2, 3, 1, 1, 2],
    );
    const upBrokers = this.brokers(true);
    const downBrokers = this.brokers(false);
    switch (kind) {
      case 'crash-broker': {
        // At most two of three brokers down at once: with none up there is nothing left to check.
        if (upBrokers.length <= 1) return this.step();
        const b = this.rng.pick(upBrokers);
        b.crash();
        return this.note(kind, b.id);
      }
      case 'restart-broker': {
        if (downBrokers.length === 0) return this.note(kind, 'none down');
        const b = this.rng.pick(downBrokers);
        b.start();
        return this.note(kind, b.id);
      }
      case 'crash-controller': {
        // Any controller, the active one included; losing the quorum's majority only stops metadata changes.
        const up = c.controllers.filter((q) => q.up);
        if (up.length === 0) return this.note(kind, 'none up');
        const q = this.rng.pick(up);
        q.crash();
        return this.note(kind, q.id);
      }
      case 'restart-controller': {
        const down = c.controllers.filter((q) => !q.up);
        if (down.length === 0) return this.note(kind, 'none down');
        const q = this.rng.pick(down);
        q.start();
        return this.note(kind, q.id);
      }
      case 'split': {
        const servers = [...c.brokers.values(), ...c.controllers].map((n) => n.id);
        const shuffled = this.rng.shuffle(servers);
        const cut = this.rng.int(1, shuffled.length - 1);
        const clients = net.nodeIds().filter((id) => !servers.includes(id));
        // The clients go with one side, chosen at random.
        const a = shuffled.slice(0, cut);
        const b = shuffled.slice(cut);
        const groups = this.rng.chance(0.5) ? [[...a, ...clients], b] : [a, [...b, ...clients]];
        net.partition(groups);
        return this.note(kind, JSON.stringify(groups));
      }
      case 'cut-outbound': {
        const servers = [...c.brokers.values(), ...c.controllers].map((n) => n.id);
        const from = this.rng.pick(servers);
        const to = servers.filter((id) => id !== from && this.rng.chance(0.5));
        if (to.length === 0) return this.note(kind, 'empty');
        net.dropOutbound(from, to);
        return this.note(kind, `${from} -> ${to.join(',')}`);
      }
      case 'isolate-leader': {
        const parts = c.image.topics[this.topic]?.partitions ?? [];
        const p = this.rng.int(0, parts.length - 1);
        const reg = parts[p];
        if (!reg || reg.leader < 0) return this.note(kind, `partition ${p} has no leader`);
        const leader = brokerNodeId(reg.leader);
        const followers = reg.replicas.filter((id) => id !== reg.leader).map(brokerNodeId);
        net.dropOutbound(leader, followers);
        // Both ways or only the leader's answers: the followers' fetches arrive, their data does not.
        if (this.rng.chance(0.5)) for (const f of followers) net.dropOutbound(f, [leader]);
        return this.note(kind, `${leader} from ${followers.join(',')}`);
      }
      case 'slow-broker': {
        const b = this.rng.pick([...c.brokers.values()]);
        const ms = this.rng.int(20, 400);
        net.setExtraDelay(b.id, ms);
        this.slow.add(b.id);
        return this.note(kind, `${b.id} +${ms} ms`);
      }
      case 'drop-messages': {
        const p = this.rng.uniform(0.005, 0.08);
        net.setDropProbability(p);
        return this.note(kind, p.toFixed(3));
      }
      case 'heal':
        net.heal();
        return this.note(kind, '');
    }
  }

  /** Ends every fault: heals the network, stops drops and slowness, starts every node that is down. */
  healAll(): void {
    const net = this.c.sim.network;
    net.heal();
    net.setDropProbability(0);
    for (const id of this.slow) net.setExtraDelay(id, 0);
    this.slow.clear();
    for (const q of this.c.controllers) if (!q.up) q.start();
    for (const b of this.c.brokers.values()) if (!b.up) b.start();
    this.note('heal', 'all');
  }
}
