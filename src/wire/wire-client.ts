// One real client connection, as a node of the simulation. Its requests travel the simulated network like any
// simulated client's (latency, partitions, isolation, a crashed target), reach the same broker, coordinator and
// controller code, and their answers come back as events. Admin requests go to the active controller the way a
// broker forwards them (KIP-590), through the admin client's retry on NOT_CONTROLLER.
import { AdminClient } from '../../models/clients/index.ts';
import type { NodeId, Simulation } from '../../models/sim/index.ts';

export class WireClient extends AdminClient {
  constructor(
    sim: Simulation,
    id: NodeId,
    /** The broker node this connection is to (its listener's), or undefined for the controller's listener. */
    readonly broker: NodeId | undefined,
    controllers: NodeId[],
    bootstrap: NodeId[],
  ) {
    super(sim, id, { controllers, bootstrap });
  }
}
