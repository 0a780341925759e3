// The composition root and its views: build a cluster, drive it, read it.
export { ClusterAdmin, type ErrorFields, type NewTopic, toKafkaError } from './admin.ts';
export {
  type BrokerSpec,
  Cluster,
  type ClusterOptions,
  CONTROLLER_NODE,
  createCluster,
  FIRST_CONTROLLER_ID,
  type MetadataLoadStatus,
  type QuorumStatus,
} from './cluster.ts';
export { type PerfConsumerReport, reportConsumerPerf } from './consumer-perf-reporter.ts';
export { type DeliveryReport, DeliveryTracker } from './delivery-check.ts';
export type { DescribeGroupOptions } from './group-admin.ts';
export { attachProducerLog, type PerfProducerReport, reportProducerPerf } from './reporters.ts';
export {
  type ActiveRequestFault,
  FAULT_APIS,
  type FaultApi,
  type RequestFaultRule,
  RequestFaults,
  requestFaultRuleOf,
} from './request-faults.ts';
export {
  DEFAULT_CLIENT_STARTUP,
  DEFAULT_TOOL_STARTUP,
  STARTUP_KEYS,
  type StartupSetting,
  StartupTimes,
  startupDistribution,
} from './startup.ts';
export { describeTopic, groupOffsetsNow } from './views.ts';
