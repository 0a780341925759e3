// Source workflow B, step by step, as the tests and the bench run it: a one-broker cluster, a topic with 2
// partitions, bend-ingest-kafka with the guide's config (4 workers), 10,000 records, the topic altered to 8
// partitions, 90,000 more records, then the guide's own SQL through the Lake's HTTP API.

import type { IngestService, IngestServiceOptions, LakeHttpApi } from '../../../models/lake/index.ts';
import { Cluster } from '../../../src/cluster/index.ts';
import type { ConsumerGroupView } from '../../../src/format/index.ts';

export const TOPIC = 'e2e_auto_rebalance';
export const TABLE = 'e2e_auto_rebalance';
export const GROUP = 'e2e-auto-rebalance';

/** The guide's ingestion config (as in scenarios/bend-ingest-partition-expansion.yaml), placeholders filled in. */
export function workflowConfig(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    kafkaBootstrapServers: '127.0.0.1:9092',
    kafkaTopic: TOPIC,
    KafkaConsumerGroup: GROUP,
    isSASL: false,
    disableTLS: true,
    isJsonTransform: false,
    lakeDSN: 'http://lake:lake@localhost:8002',
    lakeTable: `default.${TABLE}`,
    batchSize: 1000,
    batchMaxInterval: 2,
    dataFormat: 'json',
    workers: 4,
    copyPurge: true,
    copyForce: false,
    disableVariantCheck: true,
    minBytes: 1,
    maxBytes: 20971520,
    maxWait: 1,
    useReplaceMode: false,
    useStreamingLoad: true,
    copyIntoUploadCompression: true,
    maxRetryDelay: 30,
    metricsPort: 22112,
    enableRebalanceOptimization: true,
    partitionAssignmentStrategy: 'range,roundrobin',
    topicMetadataRefreshIntervalMs: 5000,
    ...overrides,
  };
}

export const TOTALS_SQL = `SELECT count(*) AS total_rows, count(DISTINCT raw_data['sequence']::UInt64) AS distinct_sequences, min(raw_data['sequence']::UInt64) AS min_sequence, max(raw_data['sequence']::UInt64) AS max_sequence FROM default.${TABLE}`;
export const PARTITIONS_SQL = `SELECT kpartition, count(*) AS rows, min(koffset), max(koffset) FROM default.${TABLE} GROUP BY kpartition ORDER BY kpartition`;

export interface QueryAnswer {
  state: string;
  schema: { name: string; type: string }[];
  data: (string | null)[][];
  error: { code: number; message: string } | null;
}

/** POST /v1/query with the guide's credentials (`-u lake:lake`), following next_uri to the end. */
export async function sql(api: LakeHttpApi, text: string): Promise<QueryAnswer> {
  const headers = { authorization: `Basic ${Buffer.from('lake:lake').toString('base64')}` };
  const first = await api.handle({
    method: 'POST',
    path: '/v1/query',
    headers,
    body: JSON.stringify({ sql: text }),
  });
  if (first.status !== 200) throw new Error(`HTTP ${first.status}: ${first.body}`);
  const answer = JSON.parse(first.body) as QueryAnswer & { next_uri: string | null };
  let next = answer.next_uri;
  while (next) {
    const page = JSON.parse(
      (await api.handle({ method: 'GET', path: next, headers })).body,
    ) as QueryAnswer & {
      next_uri: string | null;
    };
    answer.data.push(...page.data);
    next = page.next_uri;
  }
  return answer;
}

export interface WorkflowOptions {
  seed?: number;
  config?: Record<string, unknown>;
  service?: Omit<IngestServiceOptions, 'lake' | 'bootstrap'>;
  /** Phase 2 starts right after the alter instead of after the new assignment. */
  produceRightAfterAlter?: boolean;
  /** Called once the service runs and before phase 1 (faults, extra producers). */
  beforePhase1?: (w: Workflow) => void;
  /** Called right after the alter. */
  afterAlter?: (w: Workflow) => void;
  /** Called when phase 2 starts. */
  onPhase2?: (w: Workflow) => void;
}

export interface Workflow {
  cluster: Cluster;
  service: IngestService;
  /** Virtual ms from the alter until the service's assignment covered partitions 0-7. */
  coveredAfterMs: number | undefined;
  phase1LagZero: boolean;
  phase1Rows: number;
  /** Records the producers sent that the Lake should hold. */
  produced: number;
}

/** The workflow up to the point where the Lake has settled (every record ingested or given up on). */
export function runWorkflowB(options: WorkflowOptions = {}): Workflow {
  const lines: string[] = [];
  const cluster = new Cluster({ seed: options.seed ?? 1, brokers: 1, out: (l) => lines.push(l) });
  cluster.start();
  // Step 1: kafka-topics.sh --create --partitions 2 --replication-factor 1, then start the service.
  cluster.admin.createTopic({ name: TOPIC, partitions: 2, replicationFactor: 1 });
  const service = cluster.ingestService(workflowConfig(options.config), {
    ...options.service,
    log: () => {},
  });
  const w: Workflow = {
    cluster,
    service,
    coveredAfterMs: undefined,
    phase1LagZero: false,
    phase1Rows: 0,
    produced: 0,
  };
  // The guide waits for the service's first kafka_rebalance lines: two workers with a partition, two without.
  poll(
    cluster,
    () => new Set(service.rebalanceLog.map((e) => e.worker)).size === 4,
    60_000,
    'first assignment',
  );
  options.beforePhase1?.(w);
  const rows = () => cluster.lake.rowCount('default', TABLE);
  // Step 2: 10,000 records over 2 partitions; wait for 10,000 rows; lag 0 on partitions 0 and 1.
  const p1 = cluster.explicitProducer({ topic: TOPIC, start: 0, count: 10_000, partitions: 2 });
  w.produced += 10_000;
  cluster.runUntil(() => p1.done && rows() >= 10_000, { timeout: '120s', description: '10,000 rows' });
  poll(cluster, () => lagOf(cluster.groupView(GROUP), [0, 1]) === 0, 30_000, 'lag 0 on partitions 0 and 1');
  w.phase1Rows = rows();
  w.phase1LagZero = true;
  // Step 3: kafka-topics.sh --alter --partitions 8; the new assignment covers 0-7.
  const alterAt = cluster.now;
  cluster.admin.createPartitions(TOPIC, 8);
  options.afterAlter?.(w);
  const covered = () =>
    new Set(
      service
        .currentAssignment()
        .flat()
        .map((p) => p.partition),
    ).size === 8;
  if (!options.produceRightAfterAlter) {
    cluster.runUntil(covered, { timeout: '60s', description: 'partitions 0-7 assigned' });
    w.coveredAfterMs = cluster.now - alterAt;
  }
  // Step 4: 90,000 records (sequences 10,000..99,999) over 8 partitions.
  const p2 = cluster.explicitProducer({ topic: TOPIC, start: 10_000, count: 90_000, partitions: 8 });
  w.produced += 90_000;
  options.onPhase2?.(w);
  cluster.runUntil(() => p2.done, { timeout: '120s', description: 'phase 2 produced' });
  if (w.coveredAfterMs === undefined) {
    cluster.runUntil(covered, { timeout: '60s', description: 'partitions 0-7 assigned' });
    w.coveredAfterMs = cluster.now - alterAt;
  }
  // Wait for 100,000 rows; a run that loses records settles once nothing moves for a while.
  settle(w, rows);
  (w as { lines?: string[] }).lines = lines;
  return w;
}

/**
 * Runs in steps of 500 ms until `check` holds (it may ask the cluster, as a tool between runs would); throws
 * after `timeoutMs` of virtual time.
 */
export function poll(cluster: Cluster, check: () => boolean, timeoutMs: number, what: string): void {
  const end = cluster.now + timeoutMs;
  while (!check()) {
    if (cluster.now >= end) throw new Error(`${what}: not reached within ${timeoutMs} ms (t=${cluster.now})`);
    cluster.runFor(500);
  }
}

/** Runs until the Lake holds every produced record with lag 0, or until nothing moves for 60 s. */
function settle(w: Workflow, rows: () => number): void {
  const { cluster } = w;
  let last = -1;
  let quietSince = cluster.now;
  poll(
    cluster,
    () => {
      if (rows() >= w.produced && lagOf(cluster.groupView(GROUP)) === 0) return true;
      const marker = rows() + w.service.metrics.consumeRowsTotal + w.service.metrics.ingestErrorsTotal;
      if (marker !== last) {
        last = marker;
        quietSince = cluster.now;
      }
      return cluster.now - quietSince > 60_000;
    },
    900_000,
    'the Lake to settle',
  );
}

/** Sum of LAG over `partitions` (all when omitted); a partition without a committed offset counts its LEO. */
export function lagOf(view: ConsumerGroupView, partitions?: number[]): number {
  let lag = 0;
  for (const o of view.offsets) {
    if (o.topic !== TOPIC || (partitions && !partitions.includes(o.partition))) continue;
    lag += (o.logEndOffset ?? 0) - (o.committedOffset ?? 0);
  }
  return lag;
}

export function outputOf(w: Workflow): string[] {
  return (w as { lines?: string[] }).lines ?? [];
}
