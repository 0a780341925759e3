// Record batches: the unit of the data path. An event carries batches, never single records. Record content is
// optional (workloads that only need sizes and identity carry none); record identity is kept compactly as the
// producer's `runs`: contiguous ranges of the producer's own record indices, so end-to-end checks can prove
// exactly that nothing was lost or duplicated without one object per record.

/** Optional record content, carried only by workloads that need it (e.g. a sink that parses JSON values). */
export interface RecordData {
  readonly key: string | null;
  readonly value: string | null;
  /**
   * The value is JSON by construction: a simulated workload built it (workflow B's load producer), so a sink that
   * needs JSON need not parse it to know. Absent for anything else, a real client's records over the wire above all.
   */
  readonly valueIsJson?: true;
}

/** `count` records with producer record indices index..index+count-1, created at `time`. */
export interface RecordRun {
  readonly index: number;
  readonly count: number;
  readonly time: number;
}

/** What a producer sends: a batch before the leader assigns offsets. */
export interface ProducerBatchData {
  readonly count: number;
  readonly bytes: number;
  /** -1 when the producer is not idempotent. */
  readonly producerId: number;
  readonly producerEpoch: number;
  /** Sequence of the first record (per producer and partition), -1 when not idempotent. */
  readonly baseSequence: number;
  /** The producing client's node id and its record indices: kafkasim's exact record identity. */
  readonly origin: string;
  readonly runs: readonly RecordRun[];
  readonly records?: readonly RecordData[] | undefined;
  /**
   * The batch exactly as a real client encoded it (magic 2), when it came over the Kafka wire protocol: a fetch
   * over the wire serves these bytes with the log's offset and leader epoch patched in. The model never reads it.
   */
  readonly encoded?: Uint8Array | undefined;
  /**
   * Each record's CreateTime (epoch ms) as a real client stamped it, when it came over the wire. Without it a
   * record's timestamp is its batch's append time on the simulation's wall clock (Simulation.startTime + appendTime).
   */
  readonly recordTimestamps?: readonly number[] | undefined;
}

/** A batch in a partition log. Immutable once appended, so replicas can share the same object. */
export interface RecordBatch extends ProducerBatchData {
  readonly baseOffset: number;
  readonly partitionLeaderEpoch: number;
  /** Virtual time of the append on the leader (LogAppendTime). */
  readonly appendTime: number;
}

export const lastOffsetOf = (b: RecordBatch): number => b.baseOffset + b.count - 1;
