// What a run leaves for its report and its what-if metrics: time series sampled from the cluster's public
// objects, every placement change, producer throughput, latency and errors, consumer lag, and the trace events
// that later models (balancer, groups, Raft) emit. Plain data, so it can cross a worker boundary or be saved.
import type { TraceEvent } from '../../models/sim/index.ts';

export interface PlacementChange {
  /** Virtual ms (absolute). */
  t: number;
  topic: string;
  partition: number;
  /** -1 while the partition has no leader. */
  leader: number;
  replicas: number[];
  isr: number[];
  /** Non-empty while a reassignment is in progress. */
  adding: number[];
  removing: number[];
}

export interface ProduceErrorMark {
  /** Start of the bucket the errors fell in (virtual ms, absolute). */
  t: number;
  producer: string;
  count: number;
  /** Kafka error name -> occurrences (retried and failed batches alike). */
  errors: Record<string, number>;
  partitions: number[];
}

export interface ProducerSeries {
  name: string;
  /** Start of each bucket (virtual ms, absolute); buckets are `sampleMs` wide. */
  t: number[];
  /** Records acknowledged per second in each bucket. */
  recordsPerSec: number[];
  /** Mean and highest latency (ms) of the records acknowledged in the bucket; null when none were. */
  latencyAvg: (number | null)[];
  latencyMax: (number | null)[];
}

export interface LatencySummary {
  records: number;
  p50: number | null;
  p99: number | null;
  p999: number | null;
  max: number | null;
  mean: number | null;
}

export interface AssignmentChange {
  t: number;
  consumer: string;
  /** `topic-partition` names, sorted. */
  partitions: string[];
}

/** An online partition expansion (CreatePartitions) and when producers and consumers caught up with it. */
export interface AlterTiming {
  t: number;
  topic: string;
  previousCount: number;
  count: number;
  /** When every new partition had acknowledged records from a producer. */
  producedAt: number | null;
  /** When the consumers' assignments together covered every partition of the topic. */
  assignedAt: number | null;
}

/** A labelled step of the timeline: when it started, or for a waitUntil, when its condition held. */
export interface StepMark {
  t: number;
  label: string;
  action: string;
}

export interface Recording {
  /** Virtual ms of the timeline's time 0 (so charts read like the scenario's `at:` times). */
  origin: number;
  /** Virtual ms when recording ended. */
  end: number;
  sampleMs: number;
  /** Sample times (virtual ms, absolute). */
  times: number[];
  brokers: number[];
  /** Broker id -> bytes/s over the interval ending at each sample; null while the broker is down. */
  networkIn: Record<string, (number | null)[]>;
  networkOut: Record<string, (number | null)[]>;
  /** Broker id -> partitions it leads at each sample (null while down). */
  leaders: Record<string, (number | null)[]>;
  placement: PlacementChange[];
  producers: ProducerSeries[];
  produceErrors: ProduceErrorMark[];
  /** Produce errors counted by the producers themselves (retries and failures). */
  produceErrorCount: number;
  latency: LatencySummary;
  /** `topic-partition` -> lag (records, summed over consumers) at each sample; null while not assigned. */
  lag: Record<string, (number | null)[]>;
  /** Whether any consumer ran (lag is meaningful even when it stayed 0). */
  consumers: string[];
  assignments: AssignmentChange[];
  alters: AlterTiming[];
  /** Labelled steps (from the run's result; empty when the recorder was finished without it). */
  steps: StepMark[];
  /** Trace events of the kinds reports read (balancer.*, group.*, raft.*, steps, faults, elections...). */
  events: TraceEvent[];
  /** Events of those kinds left out because a kind passed its cap. */
  eventsDropped: number;
}
