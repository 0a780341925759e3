// Workflow B's variants (issue: Lake sink): each shipped sibling file and `--set` variant shows the fault it is
// about, and the flags that undo it really undo it. The sibling files' own expectations run in scenarios.test.ts;
// here are the variants that are expected to break those expectations, and what exactly they break.
import { describe, expect, it } from 'vitest';
import { runScenarioAsync, SCENARIOS_DIR } from '../../src/scenario/index.ts';

const B = `${SCENARIOS_DIR}bend-ingest-partition-expansion.yaml`;
const NO_OPT = `${SCENARIOS_DIR}bend-ingest-no-rebalance-optimization.yaml`;
const OUTAGE = `${SCENARIOS_DIR}bend-ingest-lake-outage.yaml`;
const BAD = `${SCENARIOS_DIR}bend-ingest-bad-record.yaml`;

const failedNames = (r: { expectations: { name: string; passed: boolean }[] }) =>
  r.expectations.filter((e) => !e.passed).map((e) => e.name);

/** The rows printed under a SQL print whose header starts with `header` (the lines after the dashes). */
function sqlRows(output: string[], header: string): string[][] {
  const at = output.findIndex((l) => l.startsWith(header));
  expect(at, `a SQL print with header ${header}`).toBeGreaterThanOrEqual(0);
  const rows: string[][] = [];
  for (const line of output.slice(at + 2)) {
    if (line.startsWith('(')) break;
    rows.push(line.trim().split(/\s+/));
  }
  return rows;
}

describe('workflow B variants', () => {
  it('phase 2 right after the alter with auto.offset.reset=latest: partitions 2-7 are skipped, 0 and 1 are whole', async () => {
    const r = await runScenarioAsync(B, {
      set: [
        'timeline.9.waitUntil.timeout=1ms',
        'timeline.9.waitUntil.onTimeout=continue',
        'timeline.11.waitUntil.timeout=30s',
        'timeline.11.waitUntil.onTimeout=continue',
        'timeline.12.waitUntil.timeout=1s',
        'timeline.12.waitUntil.onTimeout=continue',
        'clients.ingest.0.kafkaConfig["auto.offset.reset"]=latest',
      ],
    });
    expect(r.passed).toBe(false);
    expect(failedNames(r)).toContain(
      'totals: 100000 rows, 100000 distinct sequences, min 0, max 99999 (no loss, no duplicates)',
    );
    // The records on the new partitions were all produced before a worker owned them, and latest skips them.
    const perPartition = sqlRows(r.output, 'kpartition');
    expect(perPartition.map((row) => row.slice(0, 2))).toEqual([
      ['0', '16250'],
      ['1', '16250'],
    ]);
    expect(r.metrics['bend-ingest-kafka.rowsTotal']).toBe(32500);
    expect(r.metrics['bend-ingest-kafka.lostBatches']).toBe(0);
  });

  it('group.protocol=consumer (KIP-848): the same 100,000 rows, and the alter makes no worker give up a partition', async () => {
    // Partitions given up (kafka_rebalance: Partitions revoked: [...]) after phase 1's row count (the SQL print
    // just before the alter) and before the first assignment of a new partition (2-7): the rebalance the alter
    // caused. (The workers' lines of one rebalance come in the order their callbacks ran, so an old partition's
    // reassignment may print before or after a new one's: counting from the last old assignment would miss some.)
    const revokedAtAlter = (output: string[]) => {
      const phase1 = output.findIndex((l) => l.startsWith('total_rows'));
      const firstNew = output.findIndex((l) => /Partitions assigned: .*e2e_auto_rebalance\[[2-7]\]/.test(l));
      expect(phase1, "phase 1's row count was printed").toBeGreaterThan(0);
      expect(firstNew, 'a new partition was assigned after it').toBeGreaterThan(phase1);
      return output.slice(phase1, firstNew).filter((l) => /Partitions revoked: \[e2e/.test(l)).length;
    };
    const consumer = await runScenarioAsync(B, {
      set: ['clients.ingest.0.kafkaConfig["group.protocol"]=consumer'],
    });
    expect(consumer.error).toBeUndefined();
    expect(failedNames(consumer)).toEqual([]);
    expect(consumer.metrics['bend-ingest-kafka.rowsTotal']).toBe(100_000);
    // The coordinator hands out the new partitions at the workers' next heartbeats (5 s interval).
    expect(consumer.metrics.appliedToCoveredMs).toBeLessThan(6000);
    expect(revokedAtAlter(consumer.output)).toBe(0);
    // The classic run (range, eager): the two workers that own a partition give it up, and get it back.
    const classic = await runScenarioAsync(B);
    expect(revokedAtAlter(classic.output)).toBe(2);
  });

  it('without the rebalance optimization the Lake has duplicates; with it, or with useReplaceMode, it has none', async () => {
    const off = await runScenarioAsync(NO_OPT);
    expect(off.passed).toBe(true);
    const rowsOff = off.metrics['bend-ingest-kafka.rowsTotal']!;
    expect(rowsOff).toBeGreaterThan(100000);
    // Every extra row is a record ingested a second time: the per-partition duplicate counts add up to it.
    const dups = sqlRows(off.output, 'kpartition  duplicate_rows');
    expect(dups.reduce((n, row) => n + Number(row[1]), 0)).toBe(rowsOff - 100000);

    for (const set of [
      'clients.ingest.0.config.enableRebalanceOptimization=true',
      'clients.ingest.0.config.useReplaceMode=true',
    ]) {
      const r = await runScenarioAsync(NO_OPT, { set: [set] });
      expect(failedNames(r), set).toEqual([
        'duplicates: more than 100000 rows (batches re-read after the revoke)',
      ]);
      const d = sqlRows(r.output, 'kpartition  duplicate_rows');
      expect(
        d.every((row) => row[1] === '0'),
        set,
      ).toBe(true);
      expect(sqlRows(r.output, 'total_rows')[0]!.slice(0, 2), set).toEqual(['100000', '100000']);
    }
  });

  it('a Lake outage longer than the retries loses whole batches, and the run names their offsets', async () => {
    const r = await runScenarioAsync(OUTAGE, { set: ['timeline.3.lakeOutage=10m'] });
    expect(r.passed).toBe(false);
    const lostBatches = r.metrics['bend-ingest-kafka.lostBatches']!;
    const lostRecords = r.metrics['bend-ingest-kafka.lostRecords']!;
    expect(lostBatches).toBeGreaterThan(0);
    const lostLines = r.output.filter((l) => / LOST \d+ records /.test(l));
    expect(lostLines).toHaveLength(lostBatches);
    for (const l of lostLines)
      expect(l).toMatch(/orders\[[01]\]@\d+-\d+: .*connection refused.*\(retries exhausted\)$/);
    // What is in the Lake plus what was given up is everything ingested; nothing is there twice.
    const [total, distinct] = sqlRows(r.output, 'total_rows')[0]!.map(Number);
    expect(total).toBe(distinct);
    expect(total! + lostRecords).toBeLessThanOrEqual(20000);
    expect(r.metrics['bend-ingest-kafka.rowsTotal']).toBe(total);
  });

  it('a bad record: the error names its offset, the loss report names the batch, and the SQL shows the hole', async () => {
    const r = await runScenarioAsync(BAD);
    expect(r.passed).toBe(true);
    expect(
      r.output.some(
        (l) => l.includes('level=error') && l.includes('invalid JSON') && l.includes('orders[0]@2121'),
      ),
    ).toBe(true);
    expect(r.output).toContainEqual(
      expect.stringMatching(
        /worker-\d LOST 1000 records orders\[0\]@2000-2999: invalid JSON: .* at orders\[0\]@2121 \(not retried/,
      ),
    );
    expect(sqlRows(r.output, 'rows_with_sequence_4242')).toEqual([['0']]);
    // Another bad sequence moves the hole with it.
    const moved = await runScenarioAsync(BAD, { set: ['timeline.1.produce.invalidJson=[1]'] });
    expect(moved.output).toContainEqual(expect.stringMatching(/LOST 1000 records orders\[1\]@0-999: /));
  });

  it('crashIngest: a crash between ingest and commit duplicates exactly the batch it had written', async () => {
    const r = await runScenarioAsync(OUTAGE, {
      set: ['timeline.3={label: outage, crashIngest: {name: bend-ingest-kafka, restartAfter: 2s}}'],
    });
    const crash = r.output.find((l) => l.includes('crashed between ingest and commit:'));
    expect(crash).toBeDefined();
    const records = Number(/: (\d+) records orders/.exec(crash!)![1]);
    expect(records).toBeGreaterThan(0);
    const [total, distinct] = sqlRows(r.output, 'total_rows')[0]!.map(Number);
    expect(distinct).toBe(20000);
    expect(total! - distinct!).toBe(records);
    expect(r.output.some((l) => l.includes('level=fatal') && l.includes('before committing them'))).toBe(
      true,
    );
  });

  it('bad input: a bad sequence outside the step, or crashIngest of a client that is not an ingest service', async () => {
    await expect(runScenarioAsync(BAD, { set: ['timeline.1.produce.invalidJson=[20000]'] })).rejects.toThrow(
      /timeline\.1\.produce\.invalidJson\.0.*sequence 20000 is not produced by this step \(it produces 0\.\.9999\)/s,
    );
    await expect(
      runScenarioAsync(BAD, { set: ['timeline.3={crashIngest: {name: nobody}}'] }),
    ).rejects.toThrow(
      /timeline\.3\.crashIngest\.name: unknown ingest service 'nobody'; declared: bend-ingest-kafka/,
    );
  });
});
