// The service's Prometheus metrics, with bend-ingest-kafka's names (databendcloud/bend-ingest-kafka metrics.go):
// counters for rows and bytes ingested (on a successful IngestData, not in replace mode), consumed (after a
// successful commit) and ingest errors (per failed attempt); histograms of stage upload and COPY durations, batch
// sizes and batch fill times. The service exposes no lag metric. Histogram buckets are Prometheus' defaults
// (client_golang DefBuckets) for durations; batch-size buckets are kafkasim's choice.

const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const SIZE_BUCKETS = [1, 10, 100, 250, 500, 1000, 2500, 5000, 10000];

class Histogram {
  readonly counts: number[];
  sum = 0;
  count = 0;
  constructor(readonly buckets: readonly number[]) {
    this.counts = buckets.map(() => 0);
  }
  observe(v: number): void {
    this.sum += v;
    this.count++;
    for (let i = 0; i < this.buckets.length; i++) if (v <= this.buckets[i]!) this.counts[i]!++;
  }
}

export class IngestMetrics {
  ingestRowsTotal = 0;
  ingestBytesTotal = 0;
  consumeRowsTotal = 0;
  consumeBytesTotal = 0;
  ingestErrorsTotal = 0;
  readonly uploadStageDuration = new Histogram(DURATION_BUCKETS);
  readonly copyIntoDuration = new Histogram(DURATION_BUCKETS);
  readonly batchSize = new Histogram(SIZE_BUCKETS);
  readonly batchFillDuration = new Histogram(DURATION_BUCKETS);

  /** The /metrics page (Prometheus text format 0.0.4), service metrics only (no go_* or process_*). */
  text(): string {
    const lines: string[] = [];
    const counter = (name: string, help: string, value: number) => {
      lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} counter`, `${name} ${value}`);
    };
    const histogram = (name: string, help: string, h: Histogram) => {
      lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} histogram`);
      h.buckets.forEach((b, i) => {
        lines.push(`${name}_bucket{le="${b}"} ${h.counts[i]}`);
      });
      lines.push(`${name}_bucket{le="+Inf"} ${h.count}`, `${name}_sum ${h.sum}`, `${name}_count ${h.count}`);
    };
    counter('bend_ingest_kafka_ingest_rows_total', 'Rows ingested into the lake.', this.ingestRowsTotal);
    counter('bend_ingest_kafka_ingest_bytes_total', 'Bytes ingested into the lake.', this.ingestBytesTotal);
    counter('bend_ingest_kafka_consume_rows_total', 'Rows consumed and committed.', this.consumeRowsTotal);
    counter('bend_ingest_kafka_consume_bytes_total', 'Bytes consumed and committed.', this.consumeBytesTotal);
    counter('bend_ingest_kafka_ingest_errors_total', 'Failed ingest attempts.', this.ingestErrorsTotal);
    histogram(
      'bend_ingest_kafka_upload_stage_duration_seconds',
      'Stage upload duration.',
      this.uploadStageDuration,
    );
    histogram('bend_ingest_kafka_copy_into_duration_seconds', 'COPY INTO duration.', this.copyIntoDuration);
    histogram('bend_ingest_kafka_batch_size', 'Messages per batch.', this.batchSize);
    histogram(
      'bend_ingest_kafka_batch_fill_duration_seconds',
      'Time to fill a batch.',
      this.batchFillDuration,
    );
    return `${lines.join('\n')}\n`;
  }
}
