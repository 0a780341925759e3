// `kafkasim run`, `validate` and `list`: exit codes (0 pass, 1 an expectation failed, 2 invalid input), the
// --json shape, --trace as JSON lines, and terminal behaviour (progress and colour only on a TTY, NO_COLOR).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bufferIO } from '../../src/cli/io.ts';
import { main } from '../../src/cli/main.ts';
import { SCENARIOS_DIR } from '../../src/scenario/index.ts';

const ACKS1 = `${SCENARIOS_DIR}acks1-leader-loss.yaml`;
const dir = mkdtempSync(join(tmpdir(), 'kafkasim-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SMALL = `name: small
description: |
  A small scenario for the CLI tests.
cluster:
  brokers: 2
topics:
  - name: t
    partitions: 2
timeline:
  - print: { describe-topic: t }
  - run: 1s
expectations:
  - name: two partitions
    partitionCount: { topic: t, count: 2 }
`;
const small = join(dir, 'small.yaml');
writeFileSync(small, SMALL);

async function run(args: string[], opts: { tty?: boolean; env?: Record<string, string> } = {}) {
  const io = bufferIO();
  io.isTTY = opts.tty ?? false;
  io.env = opts.env ?? {};
  const code = await main(args, io);
  return { code, out: io.text(), err: io.errors() };
}

describe('kafkasim run', () => {
  it('exit 0: prints the steps’ tool output, then the summary', async () => {
    const { code, out, err } = await run(['run', small]);
    expect(code).toBe(0);
    expect(err).toBe('');
    expect(out).toMatch(
      /^\[ {3}0\.000s\] \$ kafka-topics\.sh --bootstrap-server localhost:9092 --describe --topic t\n/,
    );
    expect(out).toContain('\tTopic: t\tPartition: 1\tLeader: ');
    expect(out).toContain(
      'Expectations (1/1 passed)\n  PASS  two partitions\n        expected partitions of t = 2\n        actual   2\n',
    );
    expect(out).toMatch(
      /Simulated \S+ of virtual time in \S+ wall \(\S+x real time\), [\d,]+ events; seed 1, trace hash [0-9a-f]{16}\n/,
    );
    expect(out.trimEnd().endsWith('PASSED: small')).toBe(true);
    // Not a terminal: no colour codes, no progress bar.
    expect(out).not.toContain('\x1b[');
  });

  it('--json prints exactly one JSON object with the documented keys', async () => {
    const { code, out } = await run(['run', small, '--json', '--seed', '5']);
    expect(code).toBe(0);
    expect(out.endsWith('\n')).toBe(true);
    expect(out.trimEnd().split('\n')).toHaveLength(1);
    const json = JSON.parse(out);
    expect(Object.keys(json)).toEqual([
      'scenario',
      'seed',
      'passed',
      'expectations',
      'metrics',
      'virtualMs',
      'wallMs',
      'events',
      'traceHash',
    ]);
    expect(json).toMatchObject({ scenario: 'small', seed: 5, passed: true });
    expect(json.expectations).toEqual([
      { name: 'two partitions', passed: true, expected: 'partitions of t = 2', actual: 2 },
    ]);
    expect(json.traceHash).toMatch(/^[0-9a-f]{16}$/);
    expect(json.events).toBeGreaterThan(0);
    expect(json.virtualMs).toBeGreaterThan(1000);
  });

  it('the same seed gives the same traceHash run after run', async () => {
    const a = JSON.parse((await run(['run', ACKS1, '--json'])).out);
    const b = JSON.parse((await run(['run', ACKS1, '--json'])).out);
    expect(a.traceHash).toBe(b.traceHash);
    expect(a.events).toBe(b.events);
  });

  it('exit 1 when an expectation fails, with the actual values shown', async () => {
    const { code, out } = await run(['run', ACKS1, '--quiet', '--set', 'expectations.1.delivery.lost=0']);
    expect(code).toBe(1);
    expect(out).toMatch(
      / {2}FAIL {2}acknowledged records were lost\n {8}expected producer app: lost = 0\n {8}actual {3}\{"lost":\d+\}\n/,
    );
    expect(out).toMatch(/FAILED: acks1-leader-loss \(1 of 3 expectations failed\)\n$/);
    // --quiet: no tool output, no passing expectation, no metrics: only what failed and the verdict.
    expect(out).not.toContain('Topic: payments');
    expect(out).not.toContain('PASS  ');
    expect(out).not.toContain('Metrics');
    expect(out.startsWith('  FAIL  acknowledged records were lost\n')).toBe(true);
  });

  it('exit 2 for an invalid file, with located problems and no stack trace', async () => {
    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, SMALL.replace('partitions: 2', 'partitions: two'));
    const { code, out, err } = await run(['run', bad]);
    expect(code).toBe(2);
    expect(out).toBe('');
    expect(err).toBe(
      `kafkasim run: ${bad} is not a valid scenario (1 problem):\n` +
        `${bad}:8:17: topics.0.partitions: expected an integer; found string "two"\n` +
        '  8 |     partitions: two\n' +
        '    |                 ^\n',
    );
    expect(err).not.toMatch(/\n\s+at /);
  });

  it('exit 2 for bad flags and missing files', async () => {
    expect(await run(['run', small, '--seed', 'x'])).toMatchObject({
      code: 2,
      err: "kafkasim run: --seed expects an integer, got 'x'\n",
    });
    expect((await run(['run', small, '--set', 'topics.9.partitions=1'])).err).toContain(
      '--set topics.9.partitions=1: topics.9.partitions: topics has 1 item: index 9 is out of range (0..0)',
    );
    expect((await run(['run', small, '--set', 'topics.0.partitions=0'])).err).toContain(
      '--set topics.0.partitions=0: topics.0.partitions: expected an integer >= 1; found integer 0',
    );
    const unknown = await run(['run', small, '--fast']);
    expect(unknown.code).toBe(2);
    expect(unknown.err).toBe(
      "kafkasim run: unknown option '--fast'\nRun 'kafkasim run --help' for its options.\n",
    );
    expect(await run(['run'])).toMatchObject({ code: 2 });
    expect(await run(['run', join(dir, 'missing.yaml')])).toMatchObject({
      code: 2,
      err: `kafkasim run: ${join(dir, 'missing.yaml')} is not a valid scenario (1 problem):\n${join(dir, 'missing.yaml')}: no such file\n`,
    });
  });

  it('--trace writes every trace event as a JSON line', async () => {
    const file = join(dir, 'trace.jsonl');
    const { code, out } = await run(['run', small, '--trace', file]);
    expect(code).toBe(0);
    expect(out).toContain(`Trace written to ${file}`);
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    const events = lines.map((l) => JSON.parse(l) as { t: number; kind: string });
    expect(events.length).toBeGreaterThan(5);
    expect(events.filter((e) => e.kind === 'scenario.step')).toHaveLength(2);
    for (let i = 1; i < events.length; i++) expect(events[i]!.t).toBeGreaterThanOrEqual(events[i - 1]!.t);
  });

  it('on a terminal: colour and a progress bar (on stderr); NO_COLOR turns colour off', async () => {
    const tty = await run(['run', ACKS1], { tty: true });
    expect(tty.code).toBe(0);
    expect(tty.out).toContain('\x1b[32mPASS\x1b[39m');
    expect(tty.err).toMatch(/step \d+\/\d+ {2}t=\S+ {2}[\d,]+ events/);
    const noColor = await run(['run', ACKS1], { tty: true, env: { NO_COLOR: '1' } });
    expect(noColor.out).not.toContain('\x1b[');
    expect(noColor.out).toContain('  PASS  ');
  });

  it('runs a shipped scenario by name', async () => {
    const { code, out } = await run(['run', 'acks1-leader-loss', '--quiet']);
    expect(code).toBe(0);
    // --quiet on a pass: the verdict alone.
    expect(out).toBe('PASSED: acks1-leader-loss\n');
  });
});

describe('kafkasim validate and list', () => {
  it('validate: exit 0 for a valid file, 2 for an invalid one', async () => {
    expect(await run(['validate', small])).toEqual({
      code: 0,
      out: `${small}: valid scenario 'small' (2 brokers, 2 steps, 1 expectation)\n`,
      err: '',
    });
    const bad = await run(['validate', small, '--set', 'timeline.1.run=soon']);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain(
      `--set timeline.1.run=soon: timeline.1.run: expected a duration such as '250ms', '5s' or '2m'; found string "soon"`,
    );
  });

  it('list: every shipped scenario with its one-line description', async () => {
    const { code, out } = await run(['list']);
    expect(code).toBe(0);
    // Names are padded to the longest shipped name, so descriptions line up in one column.
    const lines = out.split('\n').filter((l) => /^[a-z0-9-]+ {2,}\S/.test(l));
    const column = new Set(lines.map((l) => /^[a-z0-9-]+ +/.exec(l)![0].length));
    expect(column.size).toBe(1);
    expect(out).toMatch(
      /^acks1-leader-loss +acks=1 loses acknowledged records when the leader dies before its followers copied them\.$/m,
    );
    expect(out).toMatch(/^automq-reassign-hotspot +AutoMQ workflow A1 up to the hotspot/m);
    expect(out).toMatch(/^broker-failure-rf3 +RF 3, acks=all: /m);
    const json = JSON.parse((await run(['list', '--json'])).out) as { id: string }[];
    expect(json.map((s) => s.id)).toEqual(
      expect.arrayContaining(['acks1-leader-loss', 'broker-failure-rf3']),
    );
  });

  it('the commands are in the help', async () => {
    const { out } = await run(['--help']);
    expect(out).toMatch(/^ {2}run +run a scenario file/m);
    expect(out).toMatch(/^ {2}validate +check a scenario file/m);
    expect(out).toMatch(/^ {2}list +list the shipped scenarios/m);
  });
});
