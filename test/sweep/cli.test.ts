// `kafkasim sweep` end to end: flags, the table, CSV/JSON/HTML outputs, shards and merge, and stopping.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { bufferIO, type CliIO } from '../../src/cli/io.ts';
import { main } from '../../src/cli/main.ts';
import { sweepCommand } from '../../src/cli/sweep.ts';
import type { SweepDocument } from '../../src/sweep/index.ts';
import { spawnKafkasim } from '../kafkasim-process.ts';

const TINY = fileURLToPath(new URL('./fixtures/tiny.yaml', import.meta.url));
const GRID = ['--grid', 'topics.0.partitions=2,4', '--grid', 'timeline.0.crashBroker=1,3'];
const tmp = () => mkdtempSync(join(tmpdir(), 'kafkasim-sweep-'));

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
    [['--frobnicate'], /Unknown option '--frobnicate'/],
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

  it('shards and merge give the full sweep back', async () => {
    const dir = tmp();
    const args = [TINY, ...GRID, '--metrics', 'acked,moves', '--parallel', '1'];
    const full = await sweep(...args, '--json');
    const parts: string[] = [];
    for (const k of [1, 2]) {
      const part = await sweep(...args, '--shard', `${k}/2`, '--json');
      expect(part.code).toBe(0);
      const doc = JSON.parse(part.out) as SweepDocument;
      expect(doc.cells.map((c) => c.index)).toEqual(k === 1 ? [0, 2] : [1, 3]);
      const file = join(dir, `part${k}.json`);
      writeFileSync(file, part.out);
      parts.push(file);
    }
    const merged = await sweep('merge', ...parts, '--json');
    expect(merged.code).toBe(0);
    const strip = (d: SweepDocument) => ({
      ...d,
      wallMs: 0,
      cells: d.cells.map((c) => ({ ...c, runs: c.runs.map((x) => ({ ...x, wallMs: 0 })) })),
    });
    expect(strip(JSON.parse(merged.out))).toEqual(strip(JSON.parse(full.out)));

    // One shard alone: the missing cells are named, exit 1.
    const half = await sweep('merge', parts[0]!);
    expect(half.code).toBe(1);
    expect(half.err).toMatch(/2 of 4 cells are in none of the files/);
    expect(half.out).toMatch(/Missing cells \(a shard not merged\?\): 1, 3/);

    // A document of another sweep is refused.
    const other = await sweep(TINY, '--grid', 'topics.0.partitions=2', '--metrics', 'acked,moves', '--json');
    const otherFile = join(dir, 'other.json');
    writeFileSync(otherFile, other.out);
    const bad = await sweep('merge', parts[0]!, otherFile);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/is from another sweep than .*part1\.json: its grid is/);
    const notJson = join(dir, 'x.json');
    writeFileSync(notJson, 'cell,a\n');
    expect((await sweep('merge', notJson)).err).toMatch(/not JSON/);
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
