/**
 * The message a broker's metrics reporter sends to the active controller. AutoMQ's reporter produces these to the
 * `__auto_balancer_metrics` topic and the controller's LoadRetriever consumes it (AutoMQ/automq
 * core/src/main/java/kafka/autobalancer/: AutoBalancerMetricsReporter, LoadRetriever); kafkasim sends them straight
 * to the controller, which keeps the same latest-value semantics without simulating the topic.
 */

export const AUTO_BALANCER_METRICS = 'AutoBalancerMetrics';

export interface PartitionMetrics {
  topic: string;
  partition: number;
  /** PARTITION_BYTES_IN: one-minute rate, bytes/s. */
  bytesIn: number;
  /** PARTITION_BYTES_OUT: one-minute rate, bytes/s. */
  bytesOut: number;
}

export interface AutoBalancerMetricsRequest {
  type: typeof AUTO_BALANCER_METRICS;
  brokerId: number;
  rack: string | null;
  /** Virtual time at which the broker sampled its metrics. */
  time: number;
  /** Broker metrics (YammerMetricProcessor's append and pending-latency metrics), ms. */
  pendingAppendLatencyMs: number;
  pendingFetchLatencyMs: number;
  /** Every partition the broker leads. */
  partitions: PartitionMetrics[];
}

export interface AutoBalancerMetricsResponse {
  errorCode: number;
  errorMessage?: string;
}
