import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { bufferIO } from '../../src/cli/io.ts';
import { main } from '../../src/cli/main.ts';

const hashOf = (text: string) => /trace hash ([0-9a-f]{16})/.exec(text)?.[1];

describe('kafkasim demo', () => {
  // One run shared by the checks of its narration (a few seconds of CPU); the determinism check runs two more.
  let text = '';
  beforeAll(async () => {
    const io = bufferIO();
    expect(await main(['demo', '--seed', '42'], io)).toBe(0);
    expect(io.errors()).toBe('');
    text = io.text();
  }, 120_000);

  it("tells the story in Kafka's terms: crash, fencing after the session timeout, election from the ISR", () => {
    const crashed = /\] Broker (\d+), the leader of orders-0, crashes/.exec(text)?.[1];
    expect(crashed, text).toBeDefined();
    expect(text).toMatch(new RegExp(`last heard a heartbeat from broker ${crashed} at [\\d.]+ s`));
    expect(text).toContain('broker.session.timeout.ms (9 s) has passed');
    const elected =
      /orders-0: broker (\d+) becomes the leader \(leader epoch 1\), chosen from the ISR \[([\d, ]+)\]/.exec(
        text,
      );
    expect(elected, text).not.toBeNull();
    expect(elected![1]).not.toBe(crashed);
    expect(elected![2]!.split(', ')).not.toContain(crashed);
    // The narration happens in order, at the virtual times the controller's events carry.
    const at = (needle: string) => text.indexOf(needle);
    expect(at('crashes')).toBeLessThan(at('last heard a heartbeat'));
    expect(at('last heard a heartbeat')).toBeLessThan(at('becomes the leader'));
    expect(at('becomes the leader')).toBeLessThan(at(`Broker ${crashed} restarts`));
    // The describe after the run shows the elected leader and all three replicas back in sync.
    expect(text).toContain(`Partition: 0  Leader: ${elected![1]}`);
    expect(text).toMatch(new RegExp(`orders-0: broker ${crashed} has caught up .* back in the ISR`, 's'));
  });

  it('counts exactly: every record acknowledged, nothing lost or duplicated; then points at the UI and list', () => {
    expect(text).toContain('10,000 acknowledged, 0 lost, 0 duplicated');
    expect(text).toContain('Nothing acknowledged was lost.');
    expect(text).toMatch(
      /seed 42: [\d,]+ events, [\d.]+ s virtual in [\d.]+ s wall, trace hash [0-9a-f]{16}/,
    );
    expect(text).toContain('kafkasim ui broker-failure-rf3');
    expect(text).toContain('kafkasim list');
  });

  it('the same seed gives the same hash, another seed another', async () => {
    const run = async (seed: string) => {
      const io = bufferIO();
      expect(await main(['demo', '--seed', seed], io)).toBe(0);
      return hashOf(io.text());
    };
    const first = hashOf(text);
    expect(first).toBeDefined();
    expect(await run('42')).toBe(first);
    expect(await run('43')).not.toBe(first);
  }, 120_000);

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
