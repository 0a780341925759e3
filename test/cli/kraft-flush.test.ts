// `kafkasim run scenarios/kraft-flush.yaml`: passes as shipped; with the flush guarantees switched off by --set
// it exits 1 and says which invariant failed, at what virtual time, with which seed, and that flush is off.
import { describe, expect, it } from 'vitest';
import { bufferIO } from '../../src/cli/io.ts';
import { main } from '../../src/cli/main.ts';
import { SCENARIOS_DIR } from '../../src/scenario/index.ts';

const FILE = `${SCENARIOS_DIR}kraft-flush.yaml`;

async function run(args: string[]) {
  const io = bufferIO();
  io.isTTY = false;
  io.env = {};
  const code = await main(args, io);
  return { code, out: io.text(), err: io.errors() };
}

describe('kafkasim run kraft-flush.yaml', () => {
  it('passes with the flush guarantees (the default)', async () => {
    const r = await run(['run', FILE]);
    expect(r.code).toBe(0);
    expect(r.out).toContain('PASSED: kraft-flush');
    expect(r.out).toMatch(/PASS {2}Raft invariants held/);
  });

  it('fails on MonotonicHighWatermark with --set ...flush.enable=false, naming the time, the seed and the cause', async () => {
    const r = await run(['run', FILE, '--set', 'cluster.configs.kafkasim.raft.flush.enable=false']);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(
      /invariant MonotonicHighWatermark violated: the high watermark went back from \d+ to \d+ \(leader \d+, epoch \d+\) \(seed 1, virtual time [\d.]+ms, event #\d+\); replay with seed 1\. Hint: kafkasim\.raft\.flush\.enable is false, so the Raft leader counted records it had not flushed toward the high watermark/,
    );
    expect(r.out).toContain('FAILED: kraft-flush');
  });
});
