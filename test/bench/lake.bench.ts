// Issue 8's benchmarks. Targets: the whole of workflow B (cluster, service, 100,000 records, the alter, and the
// guide's SQL verification through the HTTP API) in at most 1.5 s of wall time; 1,000,000 rows ingested into
// the Lake (rows built from consumed batches with JSON validation, written, applied to DuckDB, counted) in at
// most 5 s.
import { bench, describe } from 'vitest';
import { buildRawRows, Lake, loadRecordValue, type MessageSlice } from '../../models/lake/index.ts';
import type { RecordBatch } from '../../models/storage/index.ts';
import { PARTITIONS_SQL, runWorkflowB, sql, TOTALS_SQL } from '../models/lake/workflow-b.ts';

async function workflowB(): Promise<void> {
  const w = runWorkflowB();
  const totals = await sql(w.cluster.lakeApi, TOTALS_SQL);
  const partitions = await sql(w.cluster.lakeApi, PARTITIONS_SQL);
  if (totals.data[0]![0] !== '100000' || partitions.data.length !== 8)
    throw new Error('workflow B went wrong');
  await w.cluster.lake.close();
}

/** 1,000 batches of 1,000 records as a consumer hands them over (content included), 8 partitions. */
function consumedBatches(total: number, perBatch: number): MessageSlice[][] {
  const out: MessageSlice[][] = [];
  const next = new Array(8).fill(0);
  for (let b = 0; b < total / perBatch; b++) {
    const partition = b % 8;
    const records = [];
    for (let i = 0; i < perBatch; i++) {
      const sequence = b * perBatch + i;
      records.push({ key: `key-${sequence}`, value: loadRecordValue(sequence, partition) });
    }
    const batch: RecordBatch = {
      baseOffset: next[partition],
      count: perBatch,
      bytes: perBatch * 130,
      producerId: -1,
      producerEpoch: -1,
      baseSequence: -1,
      origin: 'bench',
      runs: [{ index: b * perBatch, count: perBatch, time: b }],
      records,
      partitionLeaderEpoch: 0,
      appendTime: b,
    };
    next[partition] += perBatch;
    out.push([{ topic: 'bench', partition, batch, first: 0, count: perBatch }]);
  }
  return out;
}

const MILLION = consumedBatches(1_000_000, 1000);

async function ingestMillion(): Promise<void> {
  const lake = new Lake({ now: 0 });
  lake.createRawTable('default', 'events');
  let seed = 1;
  for (const slices of MILLION) {
    const built = buildRawRows(slices, lake.epochMs);
    if (!built.ok) throw new Error('bad row');
    lake.writeRaw('default', 'events', built.segments, {
      mode: 'insert',
      uuidSeeds: built.segments.map(() => [seed++, seed++, seed++] as const),
    });
  }
  const r = await lake.query('SELECT count(*) FROM default.events');
  if (r.rows[0]![0] !== '1000000') throw new Error(`expected 1000000 rows, got ${r.rows[0]![0]}`);
  await lake.close();
}

describe('lake', () => {
  bench('workflow B end to end with SQL verification', workflowB, { iterations: 5, warmupIterations: 1 });
  bench('1,000,000 rows into the Lake', ingestMillion, { iterations: 3, warmupIterations: 1 });
});
