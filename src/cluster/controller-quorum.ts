// The cluster's controllers: one, keeping a local metadata log, or a KRaft quorum of `controllers` voters with ids
// from FIRST_CONTROLLER_ID (controller.quorum.voters), one QuorumController per node as Kafka's KafkaRaftServer
// starts a ControllerServer on each; with a quorum, the Raft invariants Kafka's RaftEventSimulationTest checks over
// the voters after every event; and the optional metadata-append load on each controller with its invariant.
import {
  type ControllerLifecycleEvent,
  MetadataAppendLoad,
  QuorumController,
} from '../../models/controller/index.ts';
import { controllerNodeId } from '../../models/protocol/index.ts';
import { type QuorumMember, registerRaftInvariants } from '../../models/raft/index.ts';
import type { Simulation } from '../../models/sim/index.ts';
import type { StorageMode } from '../../models/storage/index.ts';
import { type ClusterOptions, FIRST_CONTROLLER_ID } from './cluster-options.ts';

export interface ControllerQuorum {
  /** In id order; the first is the cluster's `controller`. */
  readonly controllers: readonly QuorumController[];
  readonly metadataLoads: readonly MetadataAppendLoad[];
}

/** Builds the controllers; `onLifecycle` hears each one become active or inactive. */
export function buildControllerQuorum(
  sim: Simulation,
  options: ClusterOptions,
  storage: StorageMode,
  onLifecycle: (controller: QuorumController, event: ControllerLifecycleEvent) => void,
): ControllerQuorum {
  const controllerCount = options.controllers ?? 1;
  if (!Number.isInteger(controllerCount) || controllerCount < 1)
    throw new Error(`controllers must be an integer >= 1, not ${controllerCount}`);
  const voters = Array.from({ length: controllerCount }, (_, i) => FIRST_CONTROLLER_ID + i);
  const controllers = voters.map(
    (id) =>
      new QuorumController(sim, controllerNodeId(id), {
        storageMode: storage,
        ...(options.controllerConfig ? { config: options.controllerConfig } : {}),
        ...(controllerCount > 1
          ? {
              quorum: {
                nodeId: id,
                voters,
                addressOf: controllerNodeId,
                ...(options.quorumConfig ? { config: options.quorumConfig } : {}),
              },
            }
          : {}),
      }),
  );
  for (const c of controllers) c.onLifecycle((event) => onLifecycle(c, event));
  if (controllerCount > 1) {
    // Kafka's RaftEventSimulationTest checks, after every event, over the voters of the metadata quorum.
    const members: QuorumMember[] = controllers.map((c) => ({
      replicaId: c.raft!.nodeId,
      get up() {
        return c.up;
      },
      raft: c.raft!,
    }));
    registerRaftInvariants(sim, () => members, voters);
  } else if (options.quorumConfig && Object.keys(options.quorumConfig).length > 0) {
    throw new Error(
      'quorumConfig configures the Raft metadata quorum, which needs controllers >= 2 (one controller keeps a local metadata log)',
    );
  }
  const metadataLoads = options.metadataLoad
    ? controllers.map((c) => new MetadataAppendLoad(c, options.metadataLoad!))
    : [];
  if (metadataLoads.length > 0) {
    sim.addInvariant('ReplicatedCounter', () => {
      for (const l of metadataLoads) if (l.violation) return l.violation;
      return undefined;
    });
  }
  return { controllers, metadataLoads };
}
