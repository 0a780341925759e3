// The library takes a scenario as the CLI does: a shipped scenario by id or by name, or a path relative to the
// working directory; the same scenario each way is the same run.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { runScenario, ScenarioError } from '../../src/index.ts';
import { listShippedScenarios } from '../../src/scenario/index.ts';

const cwd = process.cwd();
afterEach(() => process.chdir(cwd));

it('runScenario takes a shipped id and its name alike, and a path relative to the working directory', () => {
  const shipped = listShippedScenarios().find((s) => s.id === 'controller-failover')!;
  const byId = runScenario('controller-failover');
  expect(byId.passed).toBe(true);
  expect(runScenario(shipped.name).traceHash).toBe(byId.traceHash);

  // A file in the working directory named like a shipped scenario is the file, not the shipped one.
  const dir = mkdtempSync(join(tmpdir(), 'kafkasim-by-name-'));
  writeFileSync(
    join(dir, 'mine.yaml'),
    'name: mine\nseed: 1\ncluster: { brokers: 1 }\ntimeline:\n  - at: 1s\n    createTopic: { name: t, partitions: 1, replicationFactor: 1 }\n',
  );
  process.chdir(dir);
  expect(runScenario('mine.yaml').scenario).toBe('mine');
  expect(() => runScenario('no-such-scenario')).toThrow(ScenarioError);
});

it('a misspelt shipped name: a ScenarioError suggesting the nearest, as `kafkasim run` does', () => {
  expect(() => runScenario('acks1-leader-los')).toThrow(
    new ScenarioError([
      {
        source: 'acks1-leader-los',
        path: '',
        message: "no such file, nor a shipped scenario of that name (did you mean 'acks1-leader-loss'?)",
      },
    ]),
  );
  // Nothing near: no guess; a path that is missing is a missing file.
  expect(() => runScenario('frobnicate')).toThrow(
    /^frobnicate: no such file, nor a shipped scenario of that name$/,
  );
  expect(() => runScenario('./acks1-leader-los.yaml')).toThrow(/^\.\/acks1-leader-los\.yaml: no such file$/);
});
