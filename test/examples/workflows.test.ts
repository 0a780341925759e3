// The two source workflows of docs/workflows.md (sections "Workflow A" and "Workflow B"), run as they are written
// there: the fenced `sh` block of each section is read from the page and run by bash in the repository's root, `kafkasim`
// being the command from the sources (as test/kafkasim-process.ts spawns it) and `curl` the real one. So the
// commands, the files they name (examples/workflow-a/move.json, examples/workflow-b/config.json) and what the page
// says they print cannot drift apart. The test changes only what a test must: the server's port (a free one), and
// the clock: workflow A runs at `--speed max`; workflow B starts `--paused` and 30 virtual seconds pass after each
// command (POST /sim/advance), as they would while a person types the next one, so its counts are exact.
// The example files are checked against the shipped scenarios that carry the same content inline.
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = fileURLToPath(new URL('../../src/cli/bin.ts', import.meta.url));
const PAGE = readFileSync(join(ROOT, 'docs', 'workflows.md'), 'utf8');
const json = (file: string) => JSON.parse(readFileSync(join(ROOT, file), 'utf8'));
const scenario = (name: string) => parse(readFileSync(join(ROOT, 'scenarios', `${name}.yaml`), 'utf8'));

/** The first fenced `sh` block after the page's heading that starts with `heading`. */
function block(heading: string): string {
  const at = PAGE.indexOf(`\n## ${heading}`);
  expect(at, `docs/workflows.md has no section "## ${heading}"`).toBeGreaterThan(0);
  const m = /\n```sh\n([\s\S]*?)\n```/.exec(PAGE.slice(at));
  expect(m, `no sh block under "## ${heading}"`).not.toBeNull();
  return m![1]!;
}

/** Commands of a shell block, continuation lines joined; comments and blank lines left out. */
const commands = (sh: string) =>
  sh
    .replace(/\\\n/g, ' ')
    .split('\n')
    .filter((l) => l.trim() !== '' && !l.trim().startsWith('#'));

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const s = createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });

const ADVANCE = `curl -sf -X POST $B/sim/advance -H 'content-type: application/json' -d '{"duration":"30s"}' >/dev/null`;

/**
 * Runs a workflow block with bash. Each `kafkasim` command's output follows a line `@@ kafkasim <args>` and ends with
 * `@@ exit <code> <command>` (a background command's lines may come in between). Returns bash's stdout and stderr.
 */
async function runBlock(sh: string, clock: 'max' | 'typed'): Promise<{ out: string; err: string }> {
  const port = await freePort();
  const lines: string[] = [
    `kafkasim() { echo "@@ kafkasim $*"; node --import tsx '${BIN}' "$@"; echo "@@ exit $? $1"; }`,
  ];
  let served = false;
  for (const c of commands(sh)) {
    let line = c.replaceAll('127.0.0.1:8082', `127.0.0.1:${port}`);
    if (/^kafkasim serve .*&\s*$/.test(line)) {
      expect(line, 'the serve command sets a speed').toMatch(/ --speed \S+/);
      line = line
        .replace(/ --speed \S+/, clock === 'max' ? ' --speed max' : ' --paused')
        .replace(/\s*&\s*$/, ` --port ${port} &`);
      served = true;
      lines.push(line);
      continue;
    }
    lines.push(line);
    if (/^B=/.test(line)) {
      // The server is up when it answers (its start loads the sources: seconds on a loaded machine).
      lines.push('for i in $(seq 1 600); do curl -sf $B/metrics >/dev/null && break; sleep 0.1; done');
    } else if (clock === 'typed' && !/&\s*$/.test(line)) {
      lines.push(ADVANCE);
    }
  }
  expect(served, 'the block starts kafkasim serve').toBe(true);
  const child: ChildProcess = spawn('bash', ['-c', lines.join('\n')], { cwd: ROOT, detached: true });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => {
    out += d;
  });
  child.stderr!.on('data', (d) => {
    err += d;
  });
  const stop = () => {
    // The server (and anything else the block left in the background) is in the block's process group.
    try {
      process.kill(-child.pid!, 'SIGTERM');
    } catch {
      // already gone
    }
  };
  // 'close' comes when every holder of the pipes is gone: the server, in the background, holds them until stopped.
  const closed = new Promise<void>((resolve) => child.on('close', () => resolve()));
  try {
    await new Promise<void>((resolve, reject) => {
      child.on('error', reject);
      child.on('exit', () => resolve());
    });
  } finally {
    stop();
  }
  await closed;
  return { out, err };
}

/** The outputs of the block's `kafkasim <sub>` commands (foreground ones), in order, with their exit codes. */
function outputsOf(out: string, sub: string): { out: string; code: number }[] {
  const found: { out: string; code: number }[] = [];
  // curl's answers end without a newline, so a marker may follow one on the same line.
  const re = new RegExp(`@@ kafkasim ${sub}\\b.*\\n([\\s\\S]*?)^@@ exit (\\d+) ${sub.split(' ')[0]}$`, 'gm');
  for (const m of out.matchAll(re)) found.push({ out: m[1]!, code: Number(m[2]) });
  return found;
}

describe('the example files are the scenarios’ content', () => {
  it('examples/workflow-a/move.json is the A2 scenario’s move (every partition of 16 to broker 2)', () => {
    const move = json('examples/workflow-a/move.json');
    const step = scenario('automq-self-balancing-5-brokers').timeline.find(
      (s: { reassign?: unknown }) => s.reassign,
    );
    expect(move).toEqual(step.reassign.json);
    expect(move.partitions).toHaveLength(16);
  });

  it('examples/workflow-b/config.json is the ingest scenario’s config on the workflow’s topic, group and table', () => {
    const config = json('examples/workflow-b/config.json');
    const inline = scenario('bend-ingest-partition-expansion').clients.ingest[0].config;
    expect(config).toEqual({
      ...inline,
      kafkaTopic: 'lake-topic',
      KafkaConsumerGroup: 'lake-group',
      lakeTable: 'default.lake_table',
    });
  });
});

describe("docs/workflows.md's workflow commands, run as written", () => {
  it('workflow A: the hotspot by hand (move.json verified complete), perf tests, the balancer spreads it', async () => {
    const { out, err } = await runBlock(block('Workflow A'), 'max');
    const T = 'continuous-self-balancing-topic';
    expect(outputsOf(out, 'topics')[0]).toEqual({ out: `Created topic ${T}.\n`, code: 0 });
    const [execute, verify] = outputsOf(out, 'reassign-partitions');
    expect(execute!.code, err).toBe(0);
    expect(execute!.out).toMatch(/^Successfully started partition reassignments? for /m);
    expect(verify!.code, err).toBe(0);
    const done = verify!.out.match(new RegExp(`^Reassignment of partition ${T}-\\d+ is completed\\.$`, 'gm'));
    expect(done, verify!.out).toHaveLength(16);
    const describes = outputsOf(out, 'topics --topic');
    expect(describes).toHaveLength(3);
    const leaders = (text: string) => [...text.matchAll(/\tLeader: (\d+)\t/g)].map((m) => Number(m[1]));
    expect(leaders(describes[1]!.out)).toEqual(Array(16).fill(2));
    expect(describes[1]!.out).not.toMatch(/Replicas: [^2]|Isr: [^2]/);
    // After the perf tests the auto-balancer has moved partitions off broker 2 onto the others.
    const after = leaders(describes[2]!.out);
    expect(after).toHaveLength(16);
    expect(new Set(after).size, describes[2]!.out).toBeGreaterThan(1);
    const consumer = outputsOf(out, 'consumer-perf-test')[0]!;
    expect(consumer.code, err).toBe(0);
    expect(consumer.out).toMatch(/^time, threadId, /m);
  }, 400_000);

  it('workflow B: config.json ingests 100,000 rows across the 2 -> 8 expansion, lag 0, no errors', async () => {
    const { out, err } = await runBlock(block('Workflow B'), 'typed');
    expect(out, err).toMatch(/"state":"running"/);
    // Phase 1: the Lake holds the 10,000 records, the group has no lag on partitions 0 and 1.
    expect(out).toMatch(/"data":\[\["10000"\]\]/);
    const groups = outputsOf(out, 'consumer-groups');
    expect(groups.map((g) => g.code)).toEqual([0, 0]);
    const lagZero = (text: string) =>
      text.split('\n').filter((l) => /^lake-group\s+lake-topic\s+\d+\s+\d+\s+\d+\s+0\s/.test(l)).length;
    expect(lagZero(groups[0]!.out), groups[0]!.out).toBe(2);
    expect(lagZero(groups[1]!.out), groups[1]!.out).toBe(8);
    // Phase 2: the numbers the page states under the block.
    expect(out).toMatch(/"data":\[\["100000","100000","0","99999"\]\]/);
    expect(out).toMatch(/^bend_ingest_kafka_ingest_rows_total(\{[^}]*\})? 100000$/m);
    expect(out).toMatch(/^bend_ingest_kafka_ingest_errors_total(\{[^}]*\})? 0$/m);
  }, 400_000);
});
