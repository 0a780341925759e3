// A CLI that forgives (issue 19): every command and subcommand answers --help, a misspelt command, flag or
// scenario name gets the nearest known one as a suggestion (not Node's parser text), and a YAML syntax error is one
// error with its line and column, not the parser's cascade.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { bufferIO } from '../../src/cli/io.ts';
import { commands, main } from '../../src/cli/main.ts';

const dir = mkdtempSync(join(tmpdir(), 'kafkasim-forgiving-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function cli(...args: string[]) {
  const io = bufferIO();
  const code = await main(args, io);
  return { code, out: io.text(), err: io.errors() };
}

// The Kafka-tool commands keep joptsimple's words for an unknown option; the others say it as kafkasim does.
const KAFKA_TOOLS = new Set([
  'topics',
  'reassign-partitions',
  'consumer-groups',
  'producer-perf-test',
  'consumer-perf-test',
]);

describe('--help', () => {
  // Each %s takes the next argument: the name is given twice, or the second %s prints 'undefined'.
  it.each(Object.keys(commands).map((name) => [name, name]))(
    'kafkasim %s --help, -h and `kafkasim help %s`: its usage, exit 0',
    async (name) => {
      const long = await cli(name, '--help');
      expect(long).toMatchObject({ code: 0, err: '' });
      expect(long.out.startsWith(`Usage: kafkasim ${name}`)).toBe(true);
      expect(await cli(name, '-h')).toEqual(long);
      expect(await cli('help', name)).toEqual(long);
    },
  );

  it('a subcommand too: kafkasim sweep merge --help', async () => {
    const r = await cli('sweep', 'merge', '--help');
    expect(r.code).toBe(0);
    expect(r.out).toContain('kafkasim sweep merge');
  });

  it('a subcommand’s errors name it: kafkasim sweep merge --hlep', async () => {
    expect(await cli('sweep', 'merge', '--hlep')).toEqual({
      code: 2,
      out: '',
      err: "kafkasim sweep merge: unknown option '--hlep' (did you mean '--help'?)\nRun 'kafkasim sweep merge --help' for its options.\n",
    });
    expect((await cli('sweep', 'merge')).err).toMatch(/^kafkasim sweep merge: expected sweep JSON files/);
  });

  it('the top-level help lists every command', async () => {
    const r = await cli('--help');
    expect(r.code).toBe(0);
    for (const name of Object.keys(commands)) expect(r.out).toMatch(new RegExp(`^  ${name} +\\S`, 'm'));
  });
});

describe('did you mean', () => {
  it('an unknown command: the nearest one', async () => {
    expect(await cli('rn', 'x.yaml')).toEqual({
      code: 2,
      out: '',
      err: "kafkasim: unknown command 'rn' (did you mean 'run'?). Run 'kafkasim --help' for the list of commands.\n",
    });
    expect((await cli('sweeep')).err).toContain("(did you mean 'sweep'?)");
    expect((await cli('--versoin')).err).toContain("unknown option '--versoin' (did you mean '--version'?)");
    // Nothing near: no guess.
    expect((await cli('frobnicate')).err).toBe(
      "kafkasim: unknown command 'frobnicate'. Run 'kafkasim --help' for the list of commands.\n",
    );
  });

  it.each(Object.keys(commands))(
    'kafkasim %s --hlep: an unknown option, with --help suggested',
    async (name) => {
      const r = await cli(name, '--hlep');
      expect(r.code).toBe(2);
      expect(r.out).toBe('');
      expect(r.err).toMatch(
        KAFKA_TOOLS.has(name)
          ? new RegExp(
              `^kafkasim ${name}: --hlep is not a recognized option \\(did you mean '--help'\\?\\)\n`,
            )
          : new RegExp(
              `^kafkasim ${name}: unknown option '--hlep' \\(did you mean '--help'\\?\\)\nRun 'kafkasim ${name} --help' for its options\\.\n$`,
            ),
      );
    },
  );

  it("the issue's example: kafkasim run --sed 7", async () => {
    expect(await cli('run', 'acks1-leader-loss', '--sed', '7')).toEqual({
      code: 2,
      out: '',
      err: "kafkasim run: unknown option '--sed' (did you mean '--seed'?)\nRun 'kafkasim run --help' for its options.\n",
    });
    expect((await cli('run', 'acks1-leader-loss', '--sed=7')).err).toContain("unknown option '--sed'");
    expect((await cli('run', 'acks1-leader-loss', '--seed')).err).toBe(
      "kafkasim run: option '--seed' needs a value\nRun 'kafkasim run --help' for its options.\n",
    );
    expect((await cli('run', 'acks1-leader-loss', '--json=yes')).err).toContain(
      "option '--json' takes no value",
    );
    expect((await cli('list', 'extra')).err).toContain("kafkasim list: unexpected argument 'extra'");
    // A Kafka tool's option misspelt.
    expect((await cli('topics', '--bootstrap-server', 'http://127.0.0.1:1', '--lst')).err).toMatch(
      /^kafkasim topics: --lst is not a recognized option \(did you mean '--list'\?\)/,
    );
  });

  it('a misspelt or shortened scenario name: the shipped scenario(s) it likely means', async () => {
    for (const command of ['run', 'validate', 'sweep']) {
      const r = await cli(command, 'acks1-leader-los', ...(command === 'sweep' ? ['--grid', 'seed=1'] : []));
      expect(r).toEqual({
        code: 2,
        out: '',
        err: `kafkasim ${command}: no scenario file or shipped scenario named 'acks1-leader-los' (did you mean 'acks1-leader-loss'?). Run 'kafkasim list' for the shipped scenarios.\n`,
      });
    }
    expect((await cli('run', 'automq-self-balancing')).err).toContain(
      "(did you mean one of 'automq-self-balancing-2-brokers', 'automq-self-balancing-5-brokers'?)",
    );
    // A path is a path: a missing file is said to be missing, not guessed at.
    const missing = join(dir, 'acks1-leader-los.yaml');
    expect((await cli('run', missing)).err).toContain(`${missing}: no such file`);
  });
});

describe('a YAML syntax error', () => {
  it('is one error, the first, with its line, column and caret (not the parser’s follow-on errors)', async () => {
    const file = join(dir, 'broken.yaml');
    // An unclosed flow mapping on line 3 and an unclosed quote on line 8: the parser reports four errors.
    writeFileSync(
      file,
      [
        'name: broken',
        'cluster:',
        '  brokers: {count: 3',
        'topics:',
        '  - name: t',
        '    partitions: [1, 2',
        '  - name: u',
        '    partitions: "3',
        '',
      ].join('\n'),
    );
    const r = await cli('validate', file);
    expect(r.code).toBe(2);
    expect(r.err.split('\n')[0]).toBe(`kafkasim validate: ${file} is not a valid scenario (1 problem):`);
    expect(r.err.match(/invalid YAML/g)).toHaveLength(1);
    // What and where only: no key path between the position and the message.
    expect(r.err.split('\n')[1]).toMatch(new RegExp(`^${file}:4:1: invalid YAML: Flow map `));
    expect(r.err).toMatch(/\n {4}\| +\^\n$/);
  });
});

// The build is a no-op after npm ci; after a change to the sources it is a full tsc run (minutes on a busy machine).
describe('the real process', { timeout: 600_000 }, () => {
  it('kafkasim demo --help and a misspelt flag, from the built bin', () => {
    // spawnSync blocks the test's own timeout: each child gets one of its own.
    const sync = { encoding: 'utf8', timeout: 300_000, killSignal: 'SIGKILL' } as const;
    // The bin as package.json declares it, built first (a no-op when dist/ is up to date, as after npm ci).
    const root = fileURLToPath(new URL('../..', import.meta.url));
    const build = spawnSync(process.execPath, [join(root, 'scripts/build.mjs')], sync);
    expect(build.status, build.stderr).toBe(0);
    const bin = join(root, 'dist/src/cli/bin.js');
    const help = spawnSync(process.execPath, [bin, 'demo', '--help'], sync);
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/^Usage: kafkasim demo/);
    const typo = spawnSync(process.execPath, [bin, 'run', '--sed', '1', 'acks1-leader-loss'], sync);
    expect(typo.status).toBe(2);
    expect(typo.stderr).toBe(
      "kafkasim run: unknown option '--sed' (did you mean '--seed'?)\nRun 'kafkasim run --help' for its options.\n",
    );
  });
});
