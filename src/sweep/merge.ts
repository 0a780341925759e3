// `kafkasim sweep merge`: shard documents of one sweep back into the whole sweep. Parts must share the sweep's
// identity (scenario content, overrides, grid, seeds, metrics, kafkasim version) and shard count; every shard
// must be there, and none may be interrupted, unless a partial merge is asked for. A shard given twice (a
// retried job) is fine when its runs are the same (runs are deterministic), and so is merging a merged document
// again with its parts: the result is the same. Runs are checked against the shard they claim (the hash of cell
// and seed), so a part renamed or edited by hand is caught.
import { SweepInputError } from './errors.ts';
import { cellsOf, shardOfRun } from './grid.ts';
import { type CellResult, finishCell, type RunOutcome, type SweepDocument } from './sweep-document.ts';

export interface MergeInput {
  path: string;
  doc: SweepDocument;
}

export interface MergeOptions {
  /** Merge what is there: missing shards and interrupted parts are allowed (the table names what is missing). */
  partial?: boolean;
}

export interface MergeResult {
  doc: SweepDocument;
  /** What the merge accepted but a person may want to know (a shard given twice). */
  notes: string[];
}

const shardName = (k: number, n: number) => `${k}/${n}`;

function describeShards(doc: SweepDocument): string {
  const { n, have } = doc.shards;
  if (n === 1) return 'the whole sweep';
  return have.length === 1 ? `shard ${shardName(have[0]!, n)}` : `shards ${have.join(', ')} of ${n}`;
}

/** The field in which two sweeps differ, for the message. */
function identityDifference(a: SweepDocument, b: SweepDocument): string {
  const fields: [string, unknown, unknown][] = [
    ['scenario', a.scenario, b.scenario],
    ['scenario file (SHA-256)', a.identity.scenarioSha256, b.identity.scenarioSha256],
    ['kafkasim version', a.identity.kafkasimVersion, b.identity.kafkasimVersion],
    ['set', a.set, b.set],
    ['grid', a.grid, b.grid],
    ['seeds', a.seeds, b.seeds],
    ['metrics', a.metrics, b.metrics],
  ];
  for (const [name, x, y] of fields)
    if (JSON.stringify(x) !== JSON.stringify(y))
      return `its ${name} is ${JSON.stringify(x)}, not ${JSON.stringify(y)}`;
  return `its sweep id is ${a.identity.id}, not ${b.identity.id}`;
}

const runKey = ({ wallMs: _, ...run }: RunOutcome) => JSON.stringify(run);

export function mergeSweepDocuments(inputs: readonly MergeInput[], options: MergeOptions = {}): MergeResult {
  if (inputs.length === 0) throw new SweepInputError('merge: expected at least one sweep document');
  const [first, ...rest] = inputs;
  const base = first!.doc;
  for (const { path, doc } of rest)
    if (doc.identity.id !== base.identity.id)
      throw new SweepInputError(
        `merge: ${path} is from another sweep than ${first!.path}: ${identityDifference(doc, base)}`,
      );

  const notes: string[] = [];
  const whole = inputs.some(({ doc }) => doc.shards.n === 1);
  const counts = new Map<number, string>();
  for (const { path, doc } of inputs)
    if (doc.shards.n > 1 && !counts.has(doc.shards.n)) counts.set(doc.shards.n, path);
  if (!whole && counts.size > 1)
    throw new SweepInputError(
      `merge: the parts were split into different numbers of shards: ${[...counts].map(([n, path]) => `${n} (${path})`).join(', ')}; merge parts of one split`,
    );
  const n = whole ? 1 : [...counts.keys()][0]!;
  const holders = new Map<number, string[]>();
  for (const { path, doc } of inputs)
    for (const k of doc.shards.n === n ? doc.shards.have : [])
      holders.set(k, [...(holders.get(k) ?? []), path]);
  for (const [k, paths] of holders)
    if (paths.length > 1 && n > 1)
      notes.push(`shard ${shardName(k, n)} is in ${paths.join(' and ')}: the same runs, counted once`);

  if (!options.partial) {
    for (const { path, doc } of inputs)
      if (doc.interrupted)
        throw new SweepInputError(
          `merge: ${path} (${describeShards(doc)}) was interrupted before its runs were done; run it again (or merge with --partial)`,
        );
    const missing: string[] = [];
    for (let k = 1; k <= n; k++) if (!holders.has(k)) missing.push(shardName(k, n));
    if (missing.length > 0)
      throw new SweepInputError(
        `merge: missing shard${missing.length === 1 ? '' : 's'} ${missing.join(', ')} (given: ${inputs.map(({ path, doc }) => `${path} = ${describeShards(doc)}`).join('; ')}); add ${missing.length === 1 ? 'its part' : 'their parts'} (or merge with --partial)`,
      );
  }

  const grid = cellsOf(base.grid);
  const seedIndex = new Map(base.seeds.map((s, i) => [String(s), i]));
  const runs = new Map<number, Map<number, { path: string; run: RunOutcome }>>();
  for (const { path, doc } of inputs) {
    for (const cell of doc.cells) {
      const expected = grid[cell.index];
      if (!expected || JSON.stringify(expected.params) !== JSON.stringify(cell.params))
        throw new SweepInputError(
          `merge: ${path}: cell ${cell.index} has grid values ${JSON.stringify(cell.params)}, which are not cell ${cell.index} of the sweep's grid`,
        );
      let slots = runs.get(cell.index);
      if (!slots) runs.set(cell.index, (slots = new Map()));
      for (const run of cell.runs) {
        const s = seedIndex.get(String(run.seed));
        if (s === undefined)
          throw new SweepInputError(
            `merge: ${path}: cell ${cell.index} has a run of seed ${run.seed}, not a seed of the sweep`,
          );
        if (doc.shards.n > 1 && doc.shards.have.length === 1) {
          const owner = shardOfRun(cell.params, run.seed, doc.shards.n);
          if (owner !== doc.shards.have[0])
            throw new SweepInputError(
              `merge: ${path} says it is shard ${shardName(doc.shards.have[0]!, doc.shards.n)} but holds cell ${cell.index} seed ${run.seed}, which belongs to shard ${shardName(owner, doc.shards.n)}`,
            );
        }
        const seen = slots.get(s);
        if (seen && runKey(seen.run) !== runKey(run))
          throw new SweepInputError(
            `merge: cell ${cell.index} seed ${run.seed} differs between ${seen.path} and ${path} (a run is deterministic: were they made from different files or builds?)`,
          );
        if (!seen) slots.set(s, { path, run });
      }
    }
  }
  const cells: CellResult[] = [...runs.entries()]
    .sort(([a], [b]) => a - b)
    .map(([index, slots]) =>
      finishCell(
        grid[index]!,
        [...slots.entries()].sort(([a], [b]) => a - b).map(([, { run }]) => run),
        base.metrics,
      ),
    );
  const have = [...holders.keys()].sort((a, b) => a - b);
  return {
    doc: {
      ...base,
      shard: null,
      shards: whole ? { n: 1, have: [1] } : { n, have },
      interrupted: inputs.some(({ doc }) => doc.interrupted),
      cells,
      wallMs: inputs.reduce((sum, { doc }) => sum + (doc.wallMs ?? 0), 0),
    },
    notes,
  };
}
