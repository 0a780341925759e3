// docs/fidelity.md states simulated numbers beside the source documents' ones; this keeps them true. The tables
// between `<!-- fidelity:NAME -->` markers must be what scripts/fidelity-runs.ts makes of docs/fidelity-runs.json
// (every run's values), the first seed of each of those runs must replay to the same values, and workflow A's
// figures (with and without the WAL latency experiment), workflow B's, KAFKA-10533's and the Raft test server's
// are recomputed from fresh runs.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  EXPANSIONS,
  FAST_HANDOVER,
  type FidelityRuns,
  KRAFT_FLUSH_OFF,
  kraftFlushTable,
  REFRESH_VALUES,
  raftTestServerTable,
  refreshSet,
  runOnce,
  runScenario,
  tables,
  WAL_EXPERIMENT,
  walExperimentTable,
  workflowAShape,
  workflowATable,
  workflowBTable,
} from '../../scripts/fidelity-runs.ts';

const doc = readFileSync(new URL('../../docs/fidelity.md', import.meta.url), 'utf8');
const runs = JSON.parse(
  readFileSync(new URL('../../docs/fidelity-runs.json', import.meta.url), 'utf8'),
) as FidelityRuns;

/** The table rows between the markers (header and separator left out when `body`). */
function block(name: string, body = true, text = doc): string[] {
  const [, rest] = text.split(`<!-- fidelity:${name} -->`);
  expect(rest, `no <!-- fidelity:${name} --> block`).toBeDefined();
  const lines = rest!.split(`<!-- /fidelity:${name} -->`)[0]!.trim().split('\n');
  return body ? lines.slice(2) : lines;
}

describe('docs/fidelity.md', () => {
  it('the expansion distributions are those of the runs (50 seeds each)', () => {
    for (const s of runs.expansions) expect(s.seeds).toHaveLength(50);
    expect(block('expansions')).toEqual(tables(runs).expansions);
  });

  it('the refresh-interval sweep is that of the runs, one row per interval', () => {
    expect(runs.refreshSweep.values).toEqual(REFRESH_VALUES);
    expect(block('sweep')).toEqual(tables(runs).sweep);
  });

  it("the bend-ingest guide's bar (covered within 30 s of the alter) holds in every run", () => {
    const ingest = runs.expansions.find((s) => s.scenario === 'bend-ingest-partition-expansion')!;
    const typed = ingest.values.alterToCoveredMs!;
    expect(typed.every((v) => v !== null && v < 30_000)).toBe(true);
  });

  it("the runs replay: the first seed gives the recorded values, and workflow B's figures are seed 1's", async () => {
    for (const e of EXPANSIONS) {
      const s = runs.expansions.find((x) => x.scenario === e.scenario)!;
      const r = await runScenario(e.scenario, s.seeds[0]!, s.set);
      expect([r.metrics[e.typed], r.metrics[e.applied]], `${e.scenario} seed ${s.seeds[0]}`).toEqual([
        s.values[e.typed]![0],
        s.values[e.applied]![0],
      ]);
      if (e.scenario === 'bend-ingest-partition-expansion')
        expect(block('workflow-b', false)).toEqual(workflowBTable(r));
    }
    const first = runs.refreshSweep.series[0]!;
    const got = await runOnce('group-partition-expansion', first.seeds[0]!, refreshSet(REFRESH_VALUES[0]!));
    expect(got.appliedToAssignedMs).toBe(first.values.appliedToAssignedMs![0]);
  }, 600_000);

  it('the KAFKA-10533 figures are those of kraft-flush with the flush guarantees on and off', async () => {
    const on = await runScenario('kraft-flush', 1);
    const off = await runScenario('kraft-flush', 1, KRAFT_FLUSH_OFF);
    expect(block('kraft-flush', false)).toEqual(kraftFlushTable(on, off));
  }, 600_000);

  it("workflow A's simulated figures, and those of the WAL latency experiment, are those of fresh runs", () => {
    const a1 = workflowAShape('A1');
    expect(block('workflow-a', false)).toEqual(workflowATable(a1, workflowAShape('A2')));
    expect(block('workflow-a-wal', false)).toEqual(
      walExperimentTable(a1, workflowAShape('A1', 1, WAL_EXPERIMENT), workflowAShape('A1', 1, FAST_HANDOVER)),
    );
  }, 600_000);

  it("the Raft test server's table is that of fresh runs (the README's two tools on each disk)", () => {
    expect(block('raft-test-server', false)).toEqual(raftTestServerTable());
  }, 600_000);
});
