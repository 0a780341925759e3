// Workflow B's what-ifs: auto.offset.reset=latest when producing right after the alter, the rebalance
// optimization off (and replace mode), a Lake outage, a record that is not valid JSON, a crash between ingest
// and commit. Each checks what the SQL shows against the exact accounting the simulation keeps.
import { describe, expect, it } from 'vitest';
import type { Producer } from '../../models/clients/index.ts';
import { loadRecordValue } from '../../models/lake/index.ts';
import type { Cluster } from '../../src/cluster/index.ts';
import {
  GROUP,
  lagOf,
  runWorkflowB,
  sql,
  TABLE,
  TOPIC,
  TOTALS_SQL,
  type Workflow,
} from '../models/lake/workflow-b.ts';

const ledgerOf = (w: Workflow) => w.cluster.lake.table('default', TABLE)!.ledger;

async function totals(w: Workflow): Promise<number[]> {
  const r = await sql(w.cluster.lakeApi, TOTALS_SQL);
  expect(r.state).toBe('Succeeded');
  return r.data[0]!.map(Number);
}

/** Offsets of a partition with no row in the Lake, from the ledger. */
function missingOn(w: Workflow, partition: number): { from: number; to: number }[] {
  const end = w.cluster.partitionLogs(TOPIC)[partition]!.highWatermark - 1;
  return ledgerOf(w)
    .missing(TOPIC, partition, 0, end)
    .map(({ from, to }) => ({ from, to }));
}

describe('auto.offset.reset=latest, producing right after the alter', () => {
  it('skips exactly the records written to new partitions before their new owner reset its position', async () => {
    const w = runWorkflowB({
      produceRightAfterAlter: true,
      service: { kafkaConfig: { 'auto.offset.reset': 'latest' } },
    });
    const missing = [0, 1, 2, 3, 4, 5, 6, 7].map((p) => missingOn(w, p));
    // Partitions 0 and 1 had committed offsets: nothing skipped there.
    expect(missing[0]).toEqual([]);
    expect(missing[1]).toEqual([]);
    // Each new partition lost a prefix: everything before the reset to the high watermark.
    let skipped = 0;
    for (const p of [2, 3, 4, 5, 6, 7]) {
      expect(missing[p]!.length).toBe(1);
      expect(missing[p]![0]!.from).toBe(0);
      skipped += missing[p]![0]!.to + 1;
    }
    expect(skipped).toBeGreaterThan(0);
    const [total, distinct] = await totals(w);
    expect(total).toBe(100_000 - skipped);
    expect(distinct).toBe(total);
    // The service did not lose a batch and saw no error: the records were never read.
    expect(w.service.losses).toEqual([]);
    expect(w.service.metrics.ingestErrorsTotal).toBe(0);
    // consumer-groups --describe: partitions 0 and 1 at lag 0; a new partition skipped whole has no committed
    // offset, so the tool prints '-' for its CURRENT-OFFSET and LAG instead of showing what was skipped.
    const view = w.cluster.groupView(GROUP);
    expect(lagOf(view, [0, 1])).toBe(0);
    for (const p of [2, 3, 4, 5, 6, 7]) {
      const o = view.offsets.find((x) => x.partition === p);
      if (missing[p]![0]!.to + 1 === w.cluster.partitionLogs(TOPIC)[p]!.highWatermark)
        expect(o?.committedOffset ?? null).toBeNull();
      else expect(o?.committedOffset).toBe(w.cluster.partitionLogs(TOPIC)[p]!.highWatermark);
    }
    await w.cluster.lake.close();
  });

  it('with earliest (the service default) the same timing loses nothing', async () => {
    const w = runWorkflowB({ produceRightAfterAlter: true });
    expect(await totals(w)).toEqual([100_000, 100_000, 0, 99_999]);
    await w.cluster.lake.close();
  });
});

/** Sends sequences start.. at `rate` records/s to partition `sequence % partitions-now` for `durationMs`. */
function steadyFeed(
  cluster: Cluster,
  start: number,
  rate: number,
  durationMs: number,
): { sent: () => number } {
  const producer: Producer = cluster.producer('steady-feed', {
    flavour: 'librdkafka',
    config: { 'linger.ms': 5, 'topic.metadata.refresh.interval.ms': 1000 },
  });
  let next = start;
  const t0 = cluster.now;
  const timer = producer.every(
    20,
    () => {
      const partitions = producer.metadata.partitionCount(TOPIC) ?? 2;
      const due = Math.min(
        Math.floor(((cluster.now - t0) * rate) / 1000),
        Math.floor((durationMs * rate) / 1000),
      );
      for (; next - start < due; next++)
        producer.send({
          topic: TOPIC,
          partition: next % partitions,
          key: `key-${next}`,
          value: loadRecordValue(next, next % partitions),
        });
      if (cluster.now - t0 >= durationMs) timer.cancel();
    },
    'steady-feed',
  );
  return { sent: () => next - start };
}

describe('rebalance optimization under load across the alter', () => {
  const run = (config: Record<string, unknown>) => {
    let feed: { sent: () => number } | undefined;
    const w = runWorkflowB({
      config,
      afterAlter: (x) => {
        // Batches are in flight when the revocation comes: 2,000 records/s from 2 s before the rebalance.
        feed = steadyFeed(x.cluster, 1_000_000, 2000, 12_000);
      },
    });
    w.cluster.runFor('15s');
    return { w, sent: feed!.sent() };
  };

  it('on: revoked batches are finished and committed first, nothing is read twice', async () => {
    const { w, sent } = run({ enableRebalanceOptimization: true });
    const s = ledgerOf(w).summary();
    expect(s.distinctRecords).toBe(100_000 + sent);
    expect(s.duplicateRows).toBe(0);
    const [total, distinct] = await totals(w);
    expect([total, distinct]).toEqual([100_000 + sent, 100_000 + sent]);
    await w.cluster.lake.close();
  });

  it('off: the batch in flight at the revocation is read again by the next owner (exact duplicates)', async () => {
    const { w, sent } = run({ enableRebalanceOptimization: false });
    const s = ledgerOf(w).summary();
    expect(s.distinctRecords).toBe(100_000 + sent);
    expect(s.duplicateRows).toBeGreaterThan(0);
    const [total, distinct] = await totals(w);
    expect(distinct).toBe(100_000 + sent);
    expect(total - distinct).toBe(s.duplicateRows);
    // Duplicates are on the partitions owned before the alter, where batches were in flight.
    const dups = [0, 1].flatMap((p) => ledgerOf(w).duplicated(TOPIC, p, 0, 1_000_000));
    expect(dups.reduce((n, r) => n + r.to - r.from + 1, 0)).toBe(s.duplicateRows);
    await w.cluster.lake.close();
  });

  it('off with useReplaceMode: REPLACE INTO on (koffset, kpartition) removes the duplicates', async () => {
    const { w, sent } = run({ enableRebalanceOptimization: false, useReplaceMode: true });
    const [total, distinct] = await totals(w);
    expect([total, distinct]).toEqual([100_000 + sent, 100_000 + sent]);
    // Replace mode does not count ingest_rows_total (IngestParquetData), only consumed rows.
    expect(w.service.metrics.ingestRowsTotal).toBe(0);
    expect(w.service.metrics.consumeRowsTotal).toBeGreaterThanOrEqual(100_000 + sent);
    await w.cluster.lake.close();
  });
});

describe('faults', () => {
  it('a 20 s Lake outage during phase 2: retries with backoff, then everything arrives once', async () => {
    const w = runWorkflowB({
      onPhase2: (x) => x.cluster.lake.outage('20s', (d, fn) => x.cluster.sim.schedule(d, fn)),
    });
    expect(w.service.metrics.ingestErrorsTotal).toBeGreaterThan(0);
    expect(w.service.losses).toEqual([]);
    expect(w.service.errorLines().some((l) => l.includes('connection refused'))).toBe(true);
    expect(await totals(w)).toEqual([100_000, 100_000, 0, 99_999]);
    expect(ledgerOf(w).summary().duplicateRows).toBe(0);
    await w.cluster.lake.close();
  });

  it('an outage longer than the retries (10 attempts, capped at maxRetryDelay): the batches are lost, and listed', async () => {
    const w = runWorkflowB({
      onPhase2: (x) => x.cluster.lake.outage('400s', (d, fn) => x.cluster.sim.schedule(d, fn)),
    });
    const lost = w.service.losses;
    expect(lost.length).toBeGreaterThan(0);
    for (const l of lost) expect(l.reason).toMatch(/gave up after 10 attempts/);
    // Exactly the listed ranges are missing from the Lake.
    const listed = lost.flatMap((l) => l.ranges).reduce((n, r) => n + r.to - r.from + 1, 0);
    const [total, distinct] = await totals(w);
    expect(total).toBe(100_000 - listed);
    expect(distinct).toBe(total);
    for (const l of lost)
      for (const r of l.ranges) expect(ledgerOf(w).missing(TOPIC, r.partition, r.from, r.to)).toHaveLength(1);
    await w.cluster.lake.close();
  });

  it('a record that is not valid JSON fails its whole batch: the run shows which records were lost and why', async () => {
    const w = runWorkflowB({
      onPhase2: (x) => {
        const bad = x.cluster.producer('bad-producer', { flavour: 'librdkafka' });
        bad.schedule(0, () =>
          bad.send({ topic: TOPIC, partition: 3, key: 'bad', value: '{"sequence": oops}' }),
        );
        x.produced += 1;
      },
    });
    expect(w.service.losses).toHaveLength(1);
    const loss = w.service.losses[0]!;
    expect(loss.badRecord).toMatchObject({ topic: TOPIC, partition: 3 });
    expect(loss.reason).toMatch(/^invalid JSON: .* at e2e_auto_rebalance\[3\]@\d+$/);
    expect(w.service.metrics.ingestErrorsTotal).toBe(1);
    // Not retried: one error line for the batch, naming its offsets.
    expect(w.service.errorLines()).toHaveLength(1);
    const missingCount = [0, 1, 2, 3, 4, 5, 6, 7]
      .flatMap((p) => missingOn(w, p))
      .reduce((n, r) => n + r.to - r.from + 1, 0);
    expect(missingCount).toBe(loss.records);
    expect(loss.ranges.reduce((n, r) => n + r.to - r.from + 1, 0)).toBe(loss.records);
    const [total, distinct] = await totals(w);
    // 100,000 good records and the bad one were produced; the failed batch held the bad one and good ones.
    expect(total).toBe(100_001 - loss.records);
    expect(distinct).toBe(total);
    await w.cluster.lake.close();
  });

  it('a crash between ingest and commit: the uncommitted batch is read again after the restart (exact duplicates)', async () => {
    const w = runWorkflowB({
      beforePhase1: (x) => x.service.crashBeforeNextCommit({ restartAfter: 2000 }),
    });
    expect(w.service.incidents).toHaveLength(1);
    const incident = w.service.incidents[0]!;
    expect(incident.kind).toBe('crash-between-ingest-and-commit');
    expect(incident.records).toBeGreaterThan(0);
    const s = ledgerOf(w).summary();
    expect(s.distinctRecords).toBe(100_000);
    expect(s.duplicateRows).toBe(incident.records);
    for (const r of incident.ranges)
      expect(ledgerOf(w).duplicated(TOPIC, r.partition, r.from, r.to)).toEqual([{ ...r }]);
    const [total, distinct] = await totals(w);
    expect([total, distinct]).toEqual([100_000 + incident.records, 100_000]);
    expect(lagOf(w.cluster.groupView(GROUP))).toBe(0);
    await w.cluster.lake.close();
  });
});

describe('determinism', () => {
  it('the same seed gives the same run: trace hash, rebalance log, metrics and SQL answers', async () => {
    const a = runWorkflowB({ seed: 7 });
    const b = runWorkflowB({ seed: 7 });
    expect(a.cluster.sim.trace.hash).toBe(b.cluster.sim.trace.hash);
    expect(a.service.rebalanceLog).toEqual(b.service.rebalanceLog);
    expect(a.service.metrics.text()).toBe(b.service.metrics.text());
    const q = `SELECT uuid, koffset, kpartition, record_metadata, add_time FROM default.${TABLE} ORDER BY kpartition, koffset LIMIT 20`;
    const [ra, rb] = [await sql(a.cluster.lakeApi, q), await sql(b.cluster.lakeApi, q)];
    expect(ra.data).toHaveLength(20);
    expect(ra.data).toEqual(rb.data);
    await a.cluster.lake.close();
    await b.cluster.lake.close();
  });
});
