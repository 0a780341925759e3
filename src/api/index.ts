// The HTTP API of a served simulation (`kafkasim serve`): Confluent REST v3 admin shapes over the simulated
// cluster, simulation control (clock, faults, workloads, trace, snapshot, request log), Prometheus metrics, an
// OpenAPI document, and the optional models' routes (consumer groups, the auto-balancer under Cruise Control's
// names, the Lake's SQL endpoint). The simulation is paced to the wall clock here and only here; every change
// is applied at the current virtual time and logged so that a replay with the same seed gives the same run.
// Left out: ACLs, produce/consume over REST, broker config writes, Cruise Control's executing endpoints.
// Facts: confluentinc/kafka-rest's api/v3/openapi.yaml and resources, Kafka's tools and Errors.java, Databend's
// HTTP API (https://docs.databend.com/developer/apis/http), cited where used.
export {
  ApiClient,
  ApiConnectionError,
  ApiRequestError,
  type ApiResponse,
  clientFor,
  serverUrlOf,
} from './client.ts';
export { ApiError, type ErrorBody, restErrorOf } from './errors.ts';
export { type Fingerprint, SimHost } from './host.ts';
export { Pacer, type PacerOptions, type PacerStatus, type Speed } from './pacer.ts';
export type { RequestLog, RequestLogEntry } from './request-log.ts';
export {
  type ApiServerOptions,
  BODY_LIMIT,
  createApiServer,
  DEFAULT_HOST,
  DEFAULT_PORT,
  type ReplayResult,
  type RouteInfo,
  type RunningServer,
  replayRequestLog,
  routesOf,
  type ServeOptions,
  startServer,
} from './server.ts';
export { type OutputChunk, WORKLOAD_LIMITS, type WorkloadKind, type WorkloadView } from './workload.ts';
export { buildWorld, clusterIdFor, World, type WorldOptions } from './world.ts';
