// Source workflow B end to end (scenarios/bend-ingest-partition-expansion.yaml): online partition expansion under
// bend-ingest-kafka, verified with the guide's exact SQL through the Lake's Databend HTTP API.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  GROUP,
  lagOf,
  outputOf,
  PARTITIONS_SQL,
  runWorkflowB,
  sql,
  TABLE,
  TOPIC,
  TOTALS_SQL,
  type Workflow,
} from '../models/lake/workflow-b.ts';

describe('workflow B: Kafka -> Lake with online partition expansion', () => {
  let w: Workflow;
  beforeAll(() => {
    w = runWorkflowB();
  });
  afterAll(async () => {
    await w.cluster.lake.close();
  });

  it('phase 1: 10,000 rows, lag 0 on partitions 0 and 1, no ingest error', () => {
    expect(w.phase1Rows).toBe(10_000);
    expect(w.phase1LagZero).toBe(true);
  });

  it('prints the producer result lines', () => {
    const lines = outputOf(w).filter((l) => l.startsWith('produced='));
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^produced=10000 remaining=0 failed=0 elapsed=\S+ rate=\d+\.\d msg\/s$/);
    expect(lines[1]).toMatch(/^produced=90000 remaining=0 failed=0 elapsed=\S+ rate=\d+\.\d msg\/s$/);
  });

  it('before the alter two workers own one partition each and two are idle', () => {
    const firstAssignments = new Map<number, number[]>();
    for (const e of w.service.rebalanceLog)
      if (e.event === 'assigned' && !firstAssignments.has(e.worker))
        firstAssignments.set(
          e.worker,
          e.partitions.map((p) => p.partition),
        );
    const sizes = [...firstAssignments.values()].map((p) => p.length).sort();
    expect(sizes).toEqual([0, 0, 1, 1]);
    expect([...firstAssignments.values()].flat().sort()).toEqual([0, 1]);
  });

  it('after the alter the old partitions are revoked and 0-7 are covered within 30 s, 2 per worker', () => {
    expect(w.coveredAfterMs).toBeDefined();
    expect(w.coveredAfterMs!).toBeLessThanOrEqual(30_000);
    const revoked = w.service.rebalanceLog.filter((e) => e.event === 'revoked').flatMap((e) => e.partitions);
    expect(revoked.map((p) => p.partition).sort()).toEqual(expect.arrayContaining([0, 1]));
    const now = w.service.currentAssignment();
    expect(now.map((a) => a.length)).toEqual([2, 2, 2, 2]);
    expect(
      now
        .flat()
        .map((p) => p.partition)
        .sort(),
    ).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    const log = w.service.logLines.filter((l) => l.includes('kafka_rebalance'));
    expect(log.some((l) => l.includes(`Partitions assigned: [${TOPIC}[0]@unset ${TOPIC}[1]@unset]`))).toBe(
      true,
    );
  });

  it("the guide's totals query: 100000 rows, 100000 distinct sequences, min 0, max 99999", async () => {
    const r = await sql(w.cluster.lakeApi, TOTALS_SQL);
    expect(r.state).toBe('Succeeded');
    expect(r.error).toBeNull();
    expect(r.schema).toEqual([
      { name: 'total_rows', type: 'UInt64' },
      { name: 'distinct_sequences', type: 'UInt64' },
      { name: 'min_sequence', type: 'UInt64' },
      { name: 'max_sequence', type: 'UInt64' },
    ]);
    expect(r.data).toEqual([['100000', '100000', '0', '99999']]);
  });

  it("the guide's partition query: 16250 rows on 0 and 1, 11250 on 2-7, offsets from 0", async () => {
    const r = await sql(w.cluster.lakeApi, PARTITIONS_SQL);
    expect(r.schema.map((c) => c.name)).toEqual(['kpartition', 'rows', 'min(koffset)', 'max(koffset)']);
    expect(r.data).toEqual([
      ['0', '16250', '0', '16249'],
      ['1', '16250', '0', '16249'],
      ...[2, 3, 4, 5, 6, 7].map((p) => [String(p), '11250', '0', '11249']),
    ]);
  });

  it('consumer-groups --describe: lag 0 on partitions 0-7', () => {
    const view = w.cluster.groupView(GROUP);
    expect(view.offsets.filter((o) => o.topic === TOPIC)).toHaveLength(8);
    expect(lagOf(view)).toBe(0);
    const out = w.cluster.describeGroup(GROUP).stdout;
    const rows = out.split('\n').filter((l) => l.startsWith(GROUP));
    expect(rows).toHaveLength(8);
    for (const row of rows) expect(row.split(/\s+/)[5]).toBe('0');
  });

  it('metrics: ingest_rows_total 100000, ingest_errors_total 0; no error lines in the service log', () => {
    const text = w.service.metrics.text();
    expect(text).toContain('\nbend_ingest_kafka_ingest_rows_total 100000\n');
    expect(text).toContain('\nbend_ingest_kafka_ingest_errors_total 0\n');
    expect(w.service.errorLines()).toEqual([]);
    expect(w.service.losses).toEqual([]);
  });

  it('the Lake ledger agrees with SQL: every record exactly once', () => {
    const ledger = w.cluster.lake.table('default', TABLE)!.ledger;
    expect(ledger.summary()).toEqual({ rows: 100_000, distinctRecords: 100_000, duplicateRows: 0 });
    expect(ledger.missing(TOPIC, 0, 0, 16_249)).toEqual([]);
    expect(ledger.missing(TOPIC, 7, 0, 11_249)).toEqual([]);
  });
});
