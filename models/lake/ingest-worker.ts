// One bend-ingest-kafka worker: its own consumer in the group, and the loop of consume_worker.go
// (databendcloud/bend-ingest-kafka): read a batch, ingest it (with retries), commit it, repeat.
//
// Reading: Poll(500 ms) returns at once when messages are queued; a non-empty batch ends at batchSize
// messages, after batchMaxInterval, after 2 s without a message, or after 3 empty polls in a row; an empty
// batch waits forever. Ingesting: the rows are built (one invalid JSON value fails the batch, not retried),
// then uploaded and loaded in modelled time; upload/COPY/streaming-load failures are retried 10 times with
// backoff 1 s × 2^n capped at maxRetryDelay (retry-go); after that the batch is lost. Committing: after a
// successful ingest, CommitMessage(last message + 1) for every partition of the batch, one synchronous call
// each; a failed commit is retried after 1 s, doubling without cap, up to 500 times. At-least-once: rows are
// written before offsets are committed.
//
// enableRebalanceOptimization: with it the worker handles revocations itself (a rebalance callback): it cuts
// its batch short, ingests and commits it, and only then gives the partitions up, so the next owner starts
// after the batch. Without it librdkafka revokes at once: the batch in hand is still ingested, and its
// records are read again by the next owner from the last committed offset (duplicates, unless replace mode).
import type { TopicPartition } from '../group/assignors/index.ts';
import type { RandomStream, Timer } from '../sim/index.ts';
import { type BadRecord, buildJsonRows, buildRawRows } from './batch-rows.ts';
import type { IngestConfig } from './ingest-config.ts';
import { type IngestTimings, ingestDuration, type LoadPath } from './ingest-timing.ts';
import type { Lake } from './lake.ts';
import type { OffsetRange } from './ledger.ts';
import type { IngestMetrics } from './metrics.ts';
import {
  type CommitOffset,
  type MessageSlice,
  type RebalanceEvent,
  type SinkConsumer,
  sliceOffset,
} from './sink-consumer.ts';

const POLL_TIMEOUT_MS = 500;
/** A batch ends after this long without a message (hard-coded in batch_reader.go). */
const IDLE_CUTOFF_MS = 2000;
const EMPTY_POLLS_CUTOFF = 3;
/** retry-go's default number of attempts. */
const INGEST_ATTEMPTS = 10;
const COMMIT_ATTEMPTS = 500;

export type WorkerState = 'reading' | 'ingesting' | 'committing' | 'stopped';

interface ReadingBatch {
  slices: MessageSlice[];
  count: number;
  startedAt: number;
  lastMessageAt: number;
  emptyPolls: number;
}

export interface IngestJob {
  readonly worker: number;
  readonly slices: readonly MessageSlice[];
  readonly count: number;
  /** The batch's offsets, one range per partition run. */
  readonly ranges: OffsetRange[];
}

/**
 * What a worker needs from its process (the IngestService), and nothing more: the settings, the Lake and the
 * table, the metrics it counts into, the process's clock and timers (which die with the process), and where it
 * reports what happened.
 */
export interface WorkerHost {
  readonly config: IngestConfig;
  readonly timings: IngestTimings;
  readonly lake: Lake;
  readonly target: { readonly database: string; readonly table: string };
  readonly metrics: IngestMetrics;
  /** The stream the rows' UUIDs come from (one per process, shared by its workers). */
  readonly uuidRandom: RandomStream;
  /** Virtual time now. */
  now(): number;
  /** A timer of the process: it never fires after the process crashed or stopped. */
  schedule(delay: number, fn: () => void, label?: string): Timer;
  /** A trace event from the process. */
  emit(kind: string, fields?: Record<string, unknown>): void;
  logError(message: string, worker?: number): void;
  logRebalance(
    worker: number,
    clientId: string,
    event: 'assigned' | 'revoked',
    partitions: readonly TopicPartition[],
  ): void;
  /** A batch that will never reach the Lake. */
  recordLoss(job: IngestJob, reason: string, badRecord: BadRecord | undefined): void;
  /**
   * Called after a successful ingest, before its commit: when a crash is armed for this worker the process
   * crashes here (its rows are in the Lake, its offsets not committed) and this returns true.
   */
  crashBeforeCommit(job: IngestJob): boolean;
}

export class IngestWorker {
  state: WorkerState = 'reading';
  private batch: ReadingBatch = newBatch(0);
  private pollTimer: { cancel(): void } | undefined;
  private pendingRevoke: Extract<RebalanceEvent, { type: 'revoked' }> | undefined;
  /** Batches this worker ingested successfully. */
  batches = 0;

  constructor(
    readonly index: number,
    readonly consumer: SinkConsumer,
    private readonly service: WorkerHost,
  ) {}

  get name(): string {
    return `worker-${this.index}`;
  }

  start(): void {
    this.consumer.onRebalance((e) => this.onRebalance(e), {
      manualRevoke: this.service.config.enableRebalanceOptimization,
    });
    this.state = 'reading';
    this.batch = newBatch(this.service.now());
    this.poll();
  }

  stop(): void {
    this.state = 'stopped';
    this.pollTimer?.cancel();
    this.pollTimer = undefined;
  }

  /** Records arrived in the consumer's empty queue. */
  onReadable(): void {
    if (this.state !== 'reading' || !this.pollTimer) return;
    this.pollTimer.cancel();
    this.pollTimer = undefined;
    this.poll();
  }

  // ---- reading ---------------------------------------------------------------------------------------------

  private poll(): void {
    const cfg = this.service.config;
    const maxIntervalMs = cfg.batchMaxInterval * 1000;
    const b = this.batch;
    for (;;) {
      if (this.state !== 'reading') return;
      if (this.pendingRevoke && b.count === 0) this.releaseRevoke();
      const slices = this.consumer.poll(cfg.batchSize - b.count);
      const now = this.service.now();
      if (slices.length > 0) {
        if (b.count === 0) b.startedAt = now;
        for (const s of slices) {
          b.slices.push(s);
          b.count += s.count;
        }
        b.lastMessageAt = now;
        b.emptyPolls = 0;
      }
      if (
        b.count > 0 &&
        (b.count >= cfg.batchSize || now - b.startedAt >= maxIntervalMs || this.pendingRevoke)
      )
        return this.endBatch();
      if (slices.length === 0 || this.consumer.queued === 0) break;
    }
    this.pollTimer = this.service.schedule(
      POLL_TIMEOUT_MS,
      () => {
        this.pollTimer = undefined;
        this.onEmptyPoll();
      },
      'ingest.poll',
    );
  }

  private onEmptyPoll(): void {
    const b = this.batch;
    const now = this.service.now();
    if (b.count > 0) {
      b.emptyPolls++;
      if (
        b.emptyPolls >= EMPTY_POLLS_CUTOFF ||
        now - b.lastMessageAt > IDLE_CUTOFF_MS ||
        now - b.startedAt >= this.service.config.batchMaxInterval * 1000
      )
        return this.endBatch();
    }
    this.poll();
  }

  private endBatch(): void {
    this.pollTimer?.cancel();
    this.pollTimer = undefined;
    const b = this.batch;
    const now = this.service.now();
    this.service.metrics.batchSize.observe(b.count);
    this.service.metrics.batchFillDuration.observe((now - b.startedAt) / 1000);
    const job: IngestJob = {
      worker: this.index,
      slices: b.slices,
      count: b.count,
      ranges: rangesOf(b.slices),
    };
    this.batch = newBatch(now);
    this.state = 'ingesting';
    this.ingest(job);
  }

  // ---- ingesting -------------------------------------------------------------------------------------------

  private ingest(job: IngestJob): void {
    const svc = this.service;
    const cfg = svc.config;
    const target = svc.target;
    const lake = svc.lake;
    if (cfg.isJsonTransform) {
      const columns = lake.table(target.database, target.table)?.columns ?? [];
      const built = buildJsonRows(job.slices, columns);
      if (!built.ok) {
        // NDJSON goes to the stage as is; the COPY fails on the bad line (and is retried, as COPY errors are).
        return this.attempt(job, 1, 'copy-into', built.bad.error.length, () => this.copyError(built.bad));
      }
      return this.attempt(job, 1, 'copy-into', built.bytes, () => {
        if (!lake.table(target.database, target.table)) return missingTable(target);
        lake.writeJson(target.database, target.table, built.values, built.sources);
        svc.metrics.ingestRowsTotal += built.values.length;
        svc.metrics.ingestBytesTotal += built.bytes;
        return undefined;
      });
    }
    const built = buildRawRows(job.slices, lake.epochMs);
    if (!built.ok) {
      // The batch file cannot be built: a JSON error, not retried. The batch is lost.
      svc.metrics.ingestErrorsTotal++;
      const reason = `${built.bad.error} at ${built.bad.topic}[${built.bad.partition}]@${built.bad.offset}`;
      svc.logError(
        `Failed to ingest data between ${firstOffset(job)}-${lastOffset(job)} into Databend: ${reason}`,
        this.index,
      );
      svc.recordLoss(job, reason, built.bad);
      return this.nextBatch();
    }
    const path: LoadPath = cfg.useReplaceMode
      ? 'replace-into'
      : cfg.useStreamingLoad
        ? 'streaming-load'
        : 'copy-into';
    this.attempt(job, 1, path, built.bytes, () => {
      // Someone may have dropped the table since the service started: the load fails (and is retried).
      if (!lake.table(target.database, target.table)) return missingTable(target);
      const seeds = built.segments.map(() => {
        const r = svc.uuidRandom;
        return [r.uint32(), r.uint32(), r.uint32()] as const;
      });
      lake.writeRaw(target.database, target.table, built.segments, {
        mode: path === 'replace-into' ? 'replace' : 'insert',
        uuidSeeds: seeds,
      });
      // IngestParquetData (replace mode) does not count rows (metrics.go).
      if (path !== 'replace-into') {
        svc.metrics.ingestRowsTotal += built.rows;
        svc.metrics.ingestBytesTotal += built.bytes;
      }
      return undefined;
    });
  }

  private copyError(bad: BadRecord): string {
    return `COPY INTO failed: ${bad.error} at ${bad.topic}[${bad.partition}]@${bad.offset}`;
  }

  /**
   * One ingest attempt of `path` taking modelled time; `load` writes the rows (or returns an error) at the moment
   * the load completes.
   */
  private attempt(
    job: IngestJob,
    n: number,
    path: LoadPath,
    bytes: number,
    load: () => string | undefined,
  ): void {
    const svc = this.service;
    const t = svc.timings;
    const fail = (reason: string) => {
      svc.metrics.ingestErrorsTotal++;
      svc.logError(
        `ingest attempt ${n} of batch ${firstOffset(job)}-${lastOffset(job)} failed: ${reason}`,
        this.index,
      );
      if (n >= INGEST_ATTEMPTS) {
        svc.logError(
          `Failed to ingest data between ${firstOffset(job)}-${lastOffset(job)} into Databend: ${reason} after ${INGEST_ATTEMPTS} attempts`,
          this.index,
        );
        svc.recordLoss(job, `${reason} (gave up after ${INGEST_ATTEMPTS} attempts)`, undefined);
        return this.nextBatch();
      }
      // retry-go BackOffDelay: 1 s × 2^(n-1), capped at maxRetryDelay (0 = no cap).
      const cap = svc.config.maxRetryDelay * 1000;
      const backoff = 1000 * 2 ** (n - 1);
      svc.schedule(
        cap > 0 ? Math.min(backoff, cap) : backoff,
        () => this.attempt(job, n + 1, path, bytes, load),
        'ingest.retry',
      );
    };
    if (!svc.lake.available) {
      svc.schedule(
        t.refusedMs,
        () =>
          fail(
            `${path === 'streaming-load' ? 'streaming load' : 'upload to stage'} failed: connection refused`,
          ),
        'ingest.refused',
      );
      return;
    }
    const d = ingestDuration(path, job.count, bytes, t);
    svc.schedule(
      d.uploadMs + d.loadMs,
      () => {
        if (!svc.lake.available) return fail(`${path} failed: the Lake went down during the load`);
        const error = load();
        if (error) return fail(error);
        if (d.uploadMs > 0) svc.metrics.uploadStageDuration.observe(d.uploadMs / 1000);
        svc.metrics.copyIntoDuration.observe(d.loadMs / 1000);
        this.batches++;
        svc.emit('ingest.loaded', { worker: this.index, rows: job.count, path, attempt: n });
        this.commit(job, 0);
      },
      'ingest.load',
    );
  }

  // ---- committing ------------------------------------------------------------------------------------------

  private commit(job: IngestJob, failures: number): void {
    const svc = this.service;
    this.state = 'committing';
    if (svc.crashBeforeCommit(job)) return;
    const offsets = commitOffsets(job.slices);
    const next = (i: number) => {
      if (i >= offsets.length) return this.committed(job);
      this.consumer.commit([offsets[i]!], (error) => {
        if (this.state !== 'committing') return;
        if (!error) return next(i + 1);
        svc.logError(
          `Failed to commit messages at ${offsets[i]!.topic}[${offsets[i]!.partition}]@${offsets[i]!.offset - 1}, attempt ${failures + 1}: ${error}`,
          this.index,
        );
        // After the 500th failure the loop just ends and the batch counts as done (consume_worker.go).
        if (failures + 1 >= COMMIT_ATTEMPTS) return this.committed(job);
        svc.schedule(1000 * 2 ** failures, () => this.commit(job, failures + 1), 'ingest.commit-retry');
      });
    };
    next(0);
  }

  private committed(job: IngestJob): void {
    const svc = this.service;
    svc.metrics.consumeRowsTotal += job.count;
    let bytes = 0;
    for (const s of job.slices) bytes += s.batch.bytes * (s.count / s.batch.count);
    svc.metrics.consumeBytesTotal += Math.round(bytes);
    svc.emit('ingest.committed', { worker: this.index, rows: job.count });
    this.nextBatch();
  }

  private nextBatch(): void {
    if (this.state === 'stopped') return;
    this.state = 'reading';
    if (this.pendingRevoke) this.releaseRevoke();
    this.batch = newBatch(this.service.now());
    this.poll();
  }

  // ---- rebalance -------------------------------------------------------------------------------------------

  private onRebalance(e: RebalanceEvent): void {
    this.service.logRebalance(this.index, this.consumer.clientId, e.type, e.partitions);
    if (e.type !== 'revoked' || !this.service.config.enableRebalanceOptimization) return;
    // A stopped worker (the service is shutting down) has nothing to finish.
    if (this.state === 'stopped' || (this.state === 'reading' && this.batch.count === 0)) {
      e.release();
      return;
    }
    this.pendingRevoke = e;
    if (this.state === 'reading') this.endBatch();
  }

  private releaseRevoke(): void {
    const e = this.pendingRevoke;
    this.pendingRevoke = undefined;
    e?.release();
  }
}

function missingTable(t: { database: string; table: string }): string {
  return `load failed: Unknown table '${t.database}'.'${t.table}'`;
}

function newBatch(now: number): ReadingBatch {
  return { slices: [], count: 0, startedAt: now, lastMessageAt: now, emptyPolls: 0 };
}

/** The batch's offsets as ranges, one per run of consecutive offsets of a partition. */
export function rangesOf(slices: readonly MessageSlice[]): OffsetRange[] {
  const out: OffsetRange[] = [];
  const last = new Map<string, OffsetRange>();
  for (const s of slices) {
    const key = `${s.topic}\u0000${s.partition}`;
    const from = sliceOffset(s, 0);
    const to = sliceOffset(s, s.count - 1);
    const r = last.get(key);
    if (r && r.to + 1 === from) r.to = to;
    else {
      const range = { topic: s.topic, partition: s.partition, from, to };
      out.push(range);
      last.set(key, range);
    }
  }
  return out;
}

/** CommitMessage(last message) per partition: offset + 1 of the partition's last record in the batch. */
function commitOffsets(slices: readonly MessageSlice[]): CommitOffset[] {
  const byPartition = new Map<string, CommitOffset>();
  for (const s of slices)
    byPartition.set(`${s.topic}\u0000${s.partition}`, {
      topic: s.topic,
      partition: s.partition,
      offset: sliceOffset(s, s.count - 1) + 1,
    });
  return [...byPartition.values()];
}

function firstOffset(job: IngestJob): number {
  return job.ranges[0]?.from ?? -1;
}

function lastOffset(job: IngestJob): number {
  return job.ranges[job.ranges.length - 1]?.to ?? -1;
}
