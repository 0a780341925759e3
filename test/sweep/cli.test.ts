// `kafkasim sweep` end to end: flags, the table, CSV/JSON/HTML outputs, shards and merge, and stopping.
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { bufferIO, type CliIO } from '../../src/cli/io.ts';
import { main } from '../../src/cli/main.ts';
import { sweepCommand } from '../../src/cli/sweep.ts';
import { type SweepDocument, shardOfRun } from '../../src/sweep/index.ts';
import { spawnKafkasim } from '../kafkasim-process.ts';

const TINY = fileURLToPath(new URL('./fixtures/tiny.yaml', import.meta.url));
const GRID = ['--grid', 'topics.0.partitions=2,4', '--grid', 'timeline.0.crashBroker=1,3'];
const tmp = () => mkdtempSync(join(tmpdir(), 'kafkasim-sweep-'));

/** The document without wall times (the only part that may differ between two runs of a sweep). */
const strip = (d: SweepDocument) => ({
  ...d,
  wallMs: 0,
  cells: d.cells.map((c) => ({ ...c, runs: c.runs.map((x) => ({ ...x, wallMs: 0 })) })),
});

async function sweep(...args: string[]) {
  const io = bufferIO();
  const code = await main(['sweep', ...args], io);
  return { code, out: io.text(), err: io.errors() };
}

describe('kafkasim sweep: bad input exits 2 with a clear message', () => {
  it.each([
    [
      ['--grid', 'topics.0.partitionz=2,4'],
      /--grid topics\.0\.partitionz=2: topics\.0\.partitionz: unknown key/,
    ],
    [['--grid', 'topics.0.partitions=2,two'], /--grid topics\.0\.partitions=two: .*expected an integer/],
    [['--grid', 'partitions'], /--grid partitions: expected path=v1,v2/],
    [['--shard', '4/3'], /--shard 4\/3: K must be between 1 and 3/],
    [['--shard', '1-3'], /--shard expects K\/N/],
    [['--seeds', '2', '--seed-list', '1,2'], /either --seeds N or --seed-list/],
    [['--seeds', '0'], /--seeds expects a positive integer, got '0'/],
    [['--parallel', 'many'], /--parallel expects a positive integer/],
    [['--metrics', 'lostt'], /unknown metric 'lostt' \(did you mean 'lost'\?\)/],
    [['--frobnicate'], /unknown option '--frobnicate'/],
  ])('%j', async (flags, message) => {
    const r = await sweep(TINY, ...flags);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(message);
    expect(r.err).not.toMatch(/\n\s+at /); // no stack trace
  });

  it('a missing scenario file', async () => {
    const r = await sweep('no-such-file.yaml', '--grid', 'a=1');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/no-such-file\.yaml is not a valid scenario .*no such file/s);
  });
});

// Each sweep starts worker threads (tsx compiles the sources in each): generous time on a busy 2-core machine.
describe('kafkasim sweep', { timeout: 180_000 }, () => {
  it('prints a table per cell and writes the CSV, JSON and HTML report', async () => {
    const dir = tmp();
    const csv = join(dir, 'out.csv');
    const html = join(dir, 'out.html');
    const r = await sweep(
      TINY,
      ...GRID,
      '--seeds',
      '2',
      '--metrics',
      'acked,produceErrors,maxLag',
      '--parallel',
      '2',
      '--csv',
      csv,
      '--report',
      html,
    );
    expect(r.code).toBe(0);
    const lines = r.out.split('\n');
    expect(lines[0]).toMatch(/^cell\s+partitions\s+crashBroker\s+acked\s+produceErrors\s+maxLag\s+passed$/);
    expect(lines.slice(2, 6).map((l) => l.trim().split(/\s+/).slice(0, 3))).toEqual([
      ['0', '2', '1'],
      ['1', '2', '3'],
      ['2', '4', '1'],
      ['3', '4', '3'],
    ]);
    expect(lines[2]).toMatch(/n\/a\s+2\/2$/); // no consumer: maxLag n/a
    expect(r.out).toMatch(/median \[min–max\] over 2 seeds \(1, 2\)/);
    expect(r.err).toMatch(/Sweeping tiny: 4 cells × 2 seeds = 8 runs on 2 threads/);
    const rows = readFileSync(csv, 'utf8').trim().split('\n');
    expect(rows[0]).toBe(
      'cell,topics.0.partitions,timeline.0.crashBroker,acked.median,acked.min,acked.max,acked.n,produceErrors.median,produceErrors.min,produceErrors.max,produceErrors.n,maxLag.median,maxLag.min,maxLag.max,maxLag.n,runs,passed',
    );
    expect(rows).toHaveLength(5);
    expect(rows[1]).toMatch(/^0,2,1,\d+(\.\d+)?,\d+,\d+,2,/);
    const page = readFileSync(html, 'utf8');
    expect(page).toContain('<title>kafkasim sweep: tiny</title>');
    expect(page).toContain('id="cells-table"');

    // The same sweep gives the same table (the wall-time line aside).
    const again = await sweep(
      TINY,
      ...GRID,
      '--seeds',
      '2',
      '--metrics',
      'acked,produceErrors,maxLag',
      '--parallel',
      '1',
    );
    const table = (s: string) => s.split('\n').slice(0, -2).join('\n');
    expect(table(again.out)).toBe(table(r.out));
  });

  it('shards and merge give the full sweep back; merge refuses what does not belong together', async () => {
    const dir = tmp();
    const args = [TINY, ...GRID, '--seeds', '2', '--metrics', 'acked,moves', '--parallel', '1'];
    // The whole sweep once (each sweep starts a thread pool: most of this test's time), as JSON and CSV.
    const csvFull = join(dir, 'full.csv');
    const full = await sweep(...args, '--json', '--csv', csvFull);
    const partsDir = join(dir, 'parts');
    mkdirSync(partsDir);
    const parts: string[] = [];
    for (const k of [1, 2]) {
      const file = join(partsDir, `part${k}.json`);
      const part = await sweep(...args, '--shard', `${k}/2`, '--out', file);
      expect(part.code).toBe(0);
      expect(part.out).toMatch(new RegExp(`Shard ${k}/2: \\d of the sweep's 8 runs`));
      const doc = JSON.parse(readFileSync(file, 'utf8')) as SweepDocument;
      expect(doc.shard).toEqual({ k, n: 2 });
      expect(doc.identity.id).toBe((JSON.parse(full.out) as SweepDocument).identity.id);
      for (const c of doc.cells) for (const r of c.runs) expect(shardOfRun(c.params, r.seed, 2)).toBe(k);
      parts.push(file);
    }
    const csvMerged = join(dir, 'merged.csv');
    const merged = await sweep('merge', ...parts, '--json', '--csv', csvMerged);
    expect(merged.code).toBe(0);
    expect(strip(JSON.parse(merged.out))).toEqual({
      ...strip(JSON.parse(full.out)),
      shards: { n: 2, have: [1, 2] },
    });
    expect(readFileSync(csvMerged, 'utf8')).toBe(readFileSync(csvFull, 'utf8'));

    // A folder of parts; a retried shard (the same part twice) counts once; merging the merge again is the same.
    writeFileSync(join(partsDir, 'part2-retry.json'), readFileSync(parts[1]!));
    const again = await sweep('merge', partsDir, '--json');
    expect(again.code).toBe(0);
    expect(again.err).toMatch(
      /shard 2\/2 is in .*part2-retry\.json and .*part2\.json: the same runs, counted once/,
    );
    expect(strip(JSON.parse(again.out))).toEqual(strip(JSON.parse(merged.out)));
    const mergedFile = join(dir, 'merged.json');
    writeFileSync(mergedFile, merged.out);
    const twice = await sweep('merge', mergedFile, parts[0]!, '--json');
    expect(twice.code).toBe(0);
    expect(strip(JSON.parse(twice.out))).toEqual(strip(JSON.parse(merged.out)));

    // One shard alone: refused, naming the missing shard; --partial merges it and names the missing cells.
    const half = await sweep('merge', parts[0]!);
    expect(half.code).toBe(2);
    expect(half.err).toMatch(/missing shard 2\/2 \(given: .*part1\.json = shard 1\/2\)/);
    const partial = await sweep('merge', parts[0]!, '--partial');
    expect(partial.code).toBe(1);
    expect(partial.err).toMatch(/runs are in none of the files|cells are in none of the files/);

    // A shard whose runs differ from another copy of it (edited, or another build) is refused.
    const edited = JSON.parse(readFileSync(parts[1]!, 'utf8')) as SweepDocument;
    edited.cells[0]!.runs[0]!.metrics.acked = -1;
    const editedFile = join(dir, 'edited.json');
    writeFileSync(editedFile, JSON.stringify(edited));
    const conflict = await sweep('merge', ...parts, editedFile);
    expect(conflict.code).toBe(2);
    expect(conflict.err).toMatch(/cell \d seed \d differs between .*part2\.json and .*edited\.json/);

    // Parts of another sweep (other seeds), or of another split, are refused, naming the difference.
    const other = await sweep(
      TINY,
      ...GRID,
      '--seeds',
      '1',
      '--metrics',
      'acked,moves',
      '--shard',
      '2/2',
      '--json',
    );
    const otherFile = join(dir, 'other.json');
    writeFileSync(otherFile, other.out);
    const bad = await sweep('merge', parts[0]!, otherFile);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/is from another sweep than .*part1\.json: its seeds is \[1\], not \[1,2\]/);
    const third = await sweep(...args, '--shard', '3/3', '--json');
    const thirdFile = join(dir, 'third.json');
    writeFileSync(thirdFile, third.out);
    expect((await sweep('merge', parts[0]!, thirdFile)).err).toMatch(
      /split into different numbers of shards: 2 \(.*part1\.json\), 3 \(.*third\.json\)/,
    );
    // A part claiming a shard whose runs it does not hold.
    const liar = JSON.parse(readFileSync(parts[0]!, 'utf8')) as SweepDocument;
    liar.shard = { k: 2, n: 2 };
    liar.shards = { n: 2, have: [2] };
    const liarFile = join(dir, 'liar.json');
    writeFileSync(liarFile, JSON.stringify(liar));
    expect((await sweep('merge', parts[0]!, liarFile)).err).toMatch(
      /liar\.json says it is shard 2\/2 but holds cell \d seed \d, which belongs to shard 1\/2/,
    );
    const notJson = join(dir, 'x.json');
    writeFileSync(notJson, 'cell,a\n');
    expect((await sweep('merge', notJson)).err).toMatch(/not JSON/);
    const old = join(dir, 'old.json');
    writeFileSync(old, JSON.stringify({ ...JSON.parse(full.out), format: 'kafkasim-sweep/1' }));
    expect((await sweep('merge', old)).err).toMatch(
      /written by an older kafkasim \(format kafkasim-sweep\/1/,
    );
  });

  it('--shard auto takes the shard from the job runner, and --dry-run shows what it would run', async () => {
    const args = [TINY, ...GRID, '--seeds', '3', '--metrics', 'acked', '--dry-run'];
    const withEnv = async (env: Record<string, string>, ...extra: string[]) => {
      const io = { ...bufferIO(), env };
      const code = await main(['sweep', ...args, '--shard', 'auto', ...extra], io);
      return { code, out: io.text(), err: io.errors() };
    };
    const explicit = await sweep(...args, '--shard', '2/3');
    expect(explicit.out).toMatch(
      /^Would sweep tiny: shard 2\/3, \d+ runs in \d cells \(of 4 cells × 3 seeds = 12 runs\)/,
    );
    expect(explicit.out).toMatch(/Sweep id [0-9a-f]{16} \(scenario SHA-256 [0-9a-f]{12}…, kafkasim /);
    const runs = (out: string) => out.split('\n').filter((l) => l.startsWith('  cell'));
    // Kubernetes (0-based index, count from --shard-count), GitLab (1-based), GitHub Actions: the same shard 2/3.
    const k8s = await withEnv({ JOB_COMPLETION_INDEX: '1' }, '--shard-count', '3');
    expect(k8s.code).toBe(0);
    expect(k8s.err).toMatch(/Shard 2\/3 \(from Kubernetes JOB_COMPLETION_INDEX=1, --shard-count 3\)/);
    const gitlab = await withEnv({ CI_NODE_INDEX: '2', CI_NODE_TOTAL: '3' });
    expect(gitlab.err).toMatch(/Shard 2\/3 \(from GitLab CI_NODE_INDEX=2, CI_NODE_TOTAL=3\)/);
    const github = await withEnv({ KAFKASIM_SHARD_INDEX: '1', KAFKASIM_SHARD_COUNT: '3' });
    expect(github.err).toMatch(/Shard 2\/3 \(from KAFKASIM_SHARD_INDEX=1, KAFKASIM_SHARD_COUNT=3\)/);
    for (const r of [k8s, gitlab, github]) expect(runs(r.out)).toEqual(runs(explicit.out));
    // What cannot work is said, exit 2.
    expect((await withEnv({})).err).toMatch(
      /--shard auto: no shard index in the environment; expected JOB_COMPLETION_INDEX/,
    );
    expect((await withEnv({ JOB_COMPLETION_INDEX: '1' })).err).toMatch(
      /add --shard-count N with N the Job's spec\.completions/,
    );
    expect((await withEnv({ JOB_COMPLETION_INDEX: '3' }, '--shard-count', '3')).err).toMatch(
      /shard 4 of 3 is out of range/,
    );
    expect((await withEnv({ CI_NODE_INDEX: 'x', CI_NODE_TOTAL: '3' })).err).toMatch(
      /CI_NODE_INDEX is 'x', not a whole number/,
    );
    expect((await withEnv({ CI_NODE_INDEX: '2', CI_NODE_TOTAL: '3' }, '--shard-count', '4')).err).toMatch(
      /CI_NODE_TOTAL=3 and --shard-count 4 disagree/,
    );
    expect(
      (
        await withEnv(
          { CI_NODE_INDEX: '2', CI_NODE_TOTAL: '3', JOB_COMPLETION_INDEX: '0' },
          '--shard-count',
          '3',
        )
      ).err,
    ).toMatch(/two different shards: 1\/3 \(Kubernetes .*\) and 2\/3 \(GitLab/);
    expect((await sweep(...args, '--shard', '1/3', '--shard-count', '3')).err).toMatch(
      /--shard-count goes with --shard auto/,
    );
  });

  it('stops cleanly when told to: prints and writes the finished cells, exit 130', async () => {
    const dir = tmp();
    const csv = join(dir, 'partial.csv');
    const stop = new AbortController();
    const err: string[] = [];
    const out: string[] = [];
    // A terminal: progress lines say when the first cell is done.
    const io: CliIO = {
      stdout: (t) => out.push(t),
      stderr: (t) => {
        err.push(t);
        if (/ 1\/4 cells/.test(t)) stop.abort();
      },
      isTTY: true,
      env: {},
    };
    const code = await sweepCommand(
      [TINY, ...GRID, '--metrics', 'acked', '--parallel', '1', '--csv', csv],
      io,
      {
        signal: stop.signal,
      },
    );
    expect(code).toBe(130);
    expect(out.join('')).toMatch(/Interrupted: 1 of 4 cells finished/);
    expect(readFileSync(csv, 'utf8').trim().split('\n')).toHaveLength(2);
  });

  it('Ctrl-C (SIGINT) on the real command stops it with exit 130 and keeps what finished', async () => {
    const dir = tmp();
    const csv = join(dir, 'sigint.csv');
    const child = spawnKafkasim(
      [
        'sweep',
        TINY,
        '--grid',
        'topics.0.partitions=1,2,3,4,5,6,7,8',
        '--seeds',
        '3',
        '--metrics',
        'acked',
        '--parallel',
        '1',
        '--csv',
        csv,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    let interrupted = false;
    child.stdout!.on('data', (d) => (stdout += d));
    child.stderr!.on('data', (d) => {
      stderr += d;
      // Interrupt once, soon after the sweep has started (a second Ctrl-C would quit at once).
      if (/Sweeping tiny/.test(stderr) && !interrupted) {
        interrupted = true;
        setTimeout(() => child.kill('SIGINT'), 300);
      }
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(130);
    expect(stderr).toMatch(/Stopping: keeping the finished cells/);
    const m = /Interrupted: (\d+) of 8 cells finished/.exec(stdout);
    expect(m).not.toBeNull();
    const rows = readFileSync(csv, 'utf8').trim().split('\n');
    expect(rows).toHaveLength(1 + Number(m![1]));
    expect(Number(m![1])).toBeLessThan(8);
  });

  it('--list-metrics names the scenario, client and what-if metrics', async () => {
    const r = await sweep(TINY, '--list-metrics');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/Scenario metrics.*\n {2}acked\n/);
    expect(r.out).toContain('  app.lost');
    expect(r.out).toMatch(/ {2}timeToBalanceMs +From the first balancer plan/);
  });
});
