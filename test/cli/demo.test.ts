import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { bufferIO } from '../../src/cli/io.ts';
import { main } from '../../src/cli/main.ts';

const hashOf = (text: string) => /trace hash ([0-9a-f]{16})/.exec(text)?.[1];

describe('kafkasim demo', () => {
  it('returns 0 and prints what happened and the trace hash', async () => {
    const io = bufferIO();
    expect(await main(['demo', '--seed', '42'], io)).toBe(0);
    const text = io.text();
    expect(text).toContain('all connected');
    expect(text).toContain('n1 partitioned away');
    expect(text).toContain('healed');
    expect(text).toMatch(/seed 42: \d+ events, 20s virtual/);
    expect(hashOf(text)).toBeDefined();
    expect(io.errors()).toBe('');
  });

  it('the same seed gives the same hash, another seed another', async () => {
    const run = async (seed: string) => {
      const io = bufferIO();
      expect(await main(['demo', '--seed', seed], io)).toBe(0);
      return hashOf(io.text());
    };
    const first = await run('42');
    expect(first).toBeDefined();
    expect(await run('42')).toBe(first);
    expect(await run('43')).not.toBe(first);
  });

  it('the partition shows: n1 times out while partitioned, and everyone answers again after the heal', async () => {
    const io = bufferIO();
    await main(['demo', '--seed', '42'], io);
    const lines = io.text().split('\n');
    const counts = (line: string | undefined, word: string) =>
      Object.fromEntries(
        [...(line ?? '').matchAll(new RegExp(`(n\\d) (\\d+) ${word}`, 'g'))].map((m) => [m[1], Number(m[2])]),
      );
    const before = counts(
      lines.find((l) => l.includes('all connected')),
      'answered',
    );
    const partitioned = counts(
      lines.find((l) => l.includes('partitioned away')),
      'timed out',
    );
    const after = counts(
      lines.find((l) => l.includes('healed')),
      'answered',
    );
    expect(partitioned.n1).toBeGreaterThan(0);
    for (const n of ['n1', 'n2', 'n3']) expect(after[n]).toBeGreaterThan(before[n]!);
  });

  it('an unknown flag returns 2 with a clear message and no stack trace', async () => {
    const io = bufferIO();
    expect(await main(['demo', '--nope'], io)).toBe(2);
    expect(io.errors()).toMatch(/^kafkasim demo: .*--nope/);
    expect(io.errors()).not.toContain('    at ');
    expect(io.text()).toBe('');
  });
});

describe('kafkasim', () => {
  it("--version prints package.json's version", async () => {
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    for (const flag of ['--version', '-V']) {
      const io = bufferIO();
      expect(await main([flag], io)).toBe(0);
      expect(io.text()).toBe(`${version}\n`);
    }
  });

  it('an unknown command returns 2 and points at --help', async () => {
    const io = bufferIO();
    expect(await main(['frobnicate'], io)).toBe(2);
    expect(io.errors()).toContain("unknown command 'frobnicate'");
    expect(io.errors()).toContain('--help');
  });

  it('--help (or no command) lists the commands', async () => {
    for (const argv of [['--help'], []]) {
      const io = bufferIO();
      expect(await main(argv, io)).toBe(0);
      expect(io.text()).toMatch(/Commands:\n.*demo/);
    }
  });
});
