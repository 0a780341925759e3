// The metadata quorum and its append load as a run saw them: which controller is active, the Raft epoch, how often
// the active controller changed and how long none was active (QuorumStatus), and the metadata append load summed
// over the controllers (MetadataLoadStatus). The scenario conditions `quorum` and `metadataLoad` read these.
import type { MetadataAppendLoad, QuorumController } from '../../models/controller/index.ts';
import { controllerIdOf } from '../../models/protocol/index.ts';
import type { NodeId } from '../../models/sim/index.ts';

export interface QuorumStatus {
  controllers: number;
  /** The active controller's node id (3000, ...), if one is active now. */
  activeController: number | undefined;
  /** The highest Raft epoch among running controllers (0 with a single controller). */
  epoch: number;
  /** Times the active controller changed after the first activation (a restart of a lone controller counts). */
  leaderChanges: number;
  /** Virtual ms without an active controller since the first activation. */
  unavailableMs: number;
}

export interface MetadataLoadStatus {
  appended: number;
  acknowledged: number;
  abandoned: number;
  committed: number;
  maxAcknowledged: number;
  violation?: string;
}

/** Tracks activations of controllers; `changes` counts every activation after the first. */
export class ControllerActivity {
  changes = 0;
  #activations = 0;
  #active: NodeId | undefined;
  #downSince: number | undefined;
  #downMs = 0;

  activated(id: NodeId, now: number): void {
    if (this.#activations++ > 0) this.changes++;
    if (this.#downSince !== undefined) this.#downMs += now - this.#downSince;
    this.#downSince = undefined;
    this.#active = id;
  }

  deactivated(id: NodeId, now: number): void {
    if (this.#active !== id) return;
    this.#active = undefined;
    this.#downSince = now;
  }

  unavailableMs(now: number): number {
    return this.#downMs + (this.#downSince !== undefined ? now - this.#downSince : 0);
  }
}

/** The quorum now: `active` is the active controller, if any; `activity` its activations so far. */
export function quorumStatusOf(
  controllers: readonly QuorumController[],
  active: QuorumController | undefined,
  activity: ControllerActivity,
  now: number,
): QuorumStatus {
  let epoch = 0;
  for (const c of controllers) if (c.up && c.raft && c.raft.epoch > epoch) epoch = c.raft.epoch;
  return {
    controllers: controllers.length,
    activeController: active ? controllerIdOf(active.id) : undefined,
    epoch,
    leaderChanges: activity.changes,
    unavailableMs: activity.unavailableMs(now),
  };
}

/**
 * The metadata append load summed over the controllers: appends made, committed (acknowledged) and abandoned by a
 * failover; the counter value committed on the active controller (else the highest on a running one); the highest
 * acknowledged value; the first broken sequence, if any. Undefined without a load.
 */
export function metadataLoadStatusOf(
  loads: readonly MetadataAppendLoad[],
  active: QuorumController | undefined,
): MetadataLoadStatus | undefined {
  if (loads.length === 0) return undefined;
  const activeLoad = loads.find((l) => l.controller === active);
  let committed = activeLoad?.committed ?? 0;
  if (!activeLoad) for (const l of loads) if (l.controller.up) committed = Math.max(committed, l.committed);
  const violation = loads.find((l) => l.violation)?.violation;
  return {
    appended: loads.reduce((n, l) => n + l.appended, 0),
    acknowledged: loads.reduce((n, l) => n + l.acknowledged, 0),
    abandoned: loads.reduce((n, l) => n + l.abandoned, 0),
    committed,
    maxAcknowledged: Math.max(0, ...loads.map((l) => l.maxAcknowledged)),
    ...(violation !== undefined ? { violation } : {}),
  };
}
