// For measuring what the data-plane invariants cost the test suite (scripts/invariants-suite-cost.sh), never for a
// test run: with this setup file no Cluster registers them (as `dataPlaneInvariants: false` everywhere would), and
// Simulation.invariantNames still names them, so that the scenario tests' check that they are registered (which
// this switch defeats on purpose) does not cut those tests short and make this arm look cheaper than it is.
import { DATA_PLANE_INVARIANTS, DataPlaneInvariants } from '../../models/broker/invariants.ts';
import { Simulation } from '../../models/sim/index.ts';

DataPlaneInvariants.prototype.register = () => () => {};
Object.defineProperty(Simulation.prototype, 'invariantNames', {
  get: () => [...DATA_PLANE_INVARIANTS],
});
