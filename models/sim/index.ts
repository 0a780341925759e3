// The simulation kernel: virtual clock, event queue, seeded random streams, network with faults, node
// lifecycle, invariants, trace, and the xstate bridge. It knows nothing about Kafka: it could simulate any
// distributed system. Models import it; it imports no model.

export { type DelayedEntry, DelayLanes } from './delay-lanes.ts';
export { constant, type Distribution, mean, sample } from './distribution.ts';
export { DurationError, formatDuration, parseDuration } from './duration.ts';
export { InvariantViolation, type SimContext, SimTimeoutError, SimulationError } from './errors.ts';
export { EventQueue, type Lane, type LaneEntry, SimEvent, type Timer } from './event-queue.ts';
export { Fingerprint } from './fingerprint.ts';
export { ExitCode, KafkasimError } from './kafkasim-error.ts';
export {
  type Endpoint,
  type LinkCount,
  Network,
  type NetworkStats,
  type NodeId,
  type RequestInterception,
  type RequestInterceptor,
  type RequestOutcome,
} from './network.ts';
export { type NodeStatus, type Periodic, SimNode } from './node.ts';
export { RandomStream, Rng } from './rng.ts';
export {
  DEFAULT_START_TIME,
  type Invariant,
  type RunUntilOptions,
  Simulation,
  type SimulationOptions,
} from './simulation.ts';
export { jsonlSink, Trace, type TraceEvent, type TraceListener } from './trace.ts';
export { createSimActor, type SimClock, simClock } from './xstate-clock.ts';
