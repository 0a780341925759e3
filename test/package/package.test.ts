// The package as a user gets it: `npm pack` (which builds dist/ through prepack), then the tarball installed into
// a fresh project that has no TypeScript configuration of ours, with vitest, typescript and @types/node beside it
// (one install, from the npm cache). Then, in that project:
//   1. plain `node` runs an ESM script that builds a cluster and runs a scenario (and the library loads no server,
//      no worker pool, no DuckDB and no dev tool on import);
//   2. `npx vitest run` runs README's library example, extracted from README.md here so the two cannot drift;
//   3. `tsc --noEmit --strict` type-checks a consumer of the main types against the shipped declarations, and a
//      wrong argument type fails to compile;
//   4. `npx kafkasim` runs from the installed package (list, run with a report);
//   5. without DuckDB (an optional dependency), using the Lake fails with a message that says what to install;
//   6. Node 22 (tools/node22, from the npm registry) runs the same script and the bin with the same results.
import { type SpawnSyncReturns, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { node22 } from '../node22-tools.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const OWN = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  devDependencies: Record<string, string>;
};
const TINY = fileURLToPath(new URL('../sweep/fixtures/tiny.yaml', import.meta.url));

/** A user's ESM script: a cluster, a perf test, a scenario; prints what it got and which packages its import loaded. */
const APP = `import { createRequire } from 'node:module';
import { createCluster, listShippedScenarios, runScenario } from 'kafkasim';

const loaded = () => [...new Set(Object.keys(createRequire(import.meta.url).cache)
  .map((f) => /node_modules\\/((?:@[^/]+\\/)?[^/]+)/.exec(f)?.[1]).filter(Boolean))];
const onImport = loaded();

const cluster = createCluster({ seed: 7, brokers: 3, storage: 'kafka' });
cluster.admin.createTopic({ name: 'orders', partitions: 3, replicationFactor: 3 });
const perf = cluster.producerPerfTest({ topic: 'orders', numRecords: 2000, throughput: 1000, recordSize: 100 });
cluster.runUntil(() => perf.summary !== undefined, { timeout: '1m', description: 'perf test done' });

const result = runScenario({
  name: 'inline',
  cluster: { brokers: 3 },
  topics: [{ name: 't', partitions: 4, replicationFactor: 3 }],
  clients: { producers: [{ name: 'app', topic: 't', rate: 500, records: 1000, autoStart: true }] },
  timeline: [{ at: '1s', crashBroker: 1 }, { run: '3s' }],
  expectations: [{ name: 'nothing lost', delivery: { producer: 'app', lost: 0 } }],
});
console.log(JSON.stringify({
  delivery: cluster.deliveryReport(perf.workload.producer.id),
  passed: result.passed,
  traceHash: result.traceHash,
  shipped: listShippedScenarios().map((s) => s.id),
  onImport,
}));
`;

// Each of these tests starts node, npx, vitest or tsc in the installed project: seconds on an idle machine, a minute
// or more on the shared, loaded one (tsc over the declarations took 61 s at load 17).
const SPAWNS = 300_000;

let project: string;
/** What npm warned while installing the tarball (a user's `npm i kafkasim`, resolved afresh: no lock file of ours). */
let installWarnings = '';
let packed: { filename: string; files: { path: string }[]; size: number; unpackedSize: number };

function run(cmd: string, args: string[], cwd = project): SpawnSyncReturns<string> {
  const r = spawnSync(cmd, args, {
    cwd,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    // spawnSync blocks the worker's timers, so the test's own timeout cannot end a stalled child: this does.
    timeout: SPAWNS,
    killSignal: 'SIGKILL',
    env: { ...process.env, NO_COLOR: '1', NODE_OPTIONS: '' },
  });
  if (r.error) throw r.error;
  return r;
}

function ok(r: SpawnSyncReturns<string>): string {
  expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
  return r.stdout;
}

beforeAll(() => {
  project = mkdtempSync(join(tmpdir(), 'kafkasim-package-'));
  // npm pack runs prepare and prepack (the build, incremental); the JSON report is the last thing it prints.
  const pack = ok(run('npm', ['pack', '--json', '--pack-destination', project], ROOT));
  packed = (JSON.parse(pack.slice(pack.search(/^\[/m))) as (typeof packed)[])[0]!;
  writeFileSync(join(project, 'package.json'), '{ "name": "consumer", "private": true, "type": "module" }\n');
  const tools = ['vitest', 'typescript', '@types/node'].map((p) => `${p}@${OWN.devDependencies[p]}`);
  const install = run('npm', [
    'install',
    join(project, packed.filename),
    ...tools,
    '--prefer-offline',
    '--no-audit',
    '--no-fund',
    '--loglevel=warn',
  ]);
  ok(install);
  installWarnings = install.stderr;
}, 900_000);

afterAll(() => {
  if (project) rmSync(project, { recursive: true, force: true });
}, 120_000);

describe('the npm package', () => {
  it('ships the build, the scenarios, the schema and the examples, and nothing of the development tree', () => {
    const files = packed.files.map((f) => f.path);
    for (const f of [
      'package.json',
      'LICENSE',
      'NOTICE',
      'dist/src/index.js',
      'dist/src/index.d.ts',
      'dist/src/index.js.map',
      'dist/src/cli/bin.js',
      'dist/src/sweep/worker.js',
      'dist/src/scenario/scenario-validator.cjs',
      'dist/vendor/echarts/echarts.min.js',
      'dist/vendor/echarts/LICENSE',
      'dist/vendor/echarts/NOTICE',
      'scenarios/automq-self-balancing-5-brokers.yaml',
      'schema/scenario.schema.json',
      'examples/workflow-a/move.json',
      'examples/workflow-b/config.json',
    ])
      expect(files, f).toContain(f);
    const stray = files.filter(
      (f) =>
        f.startsWith('test/') ||
        f.startsWith('scripts/') ||
        /^(src|models)\//.test(f) ||
        (f.endsWith('.ts') && !f.endsWith('.d.ts')) ||
        f.includes('tsbuildinfo') ||
        f.includes('worker-from-sources'),
    );
    expect(stray).toEqual([]);
    const installed = JSON.parse(
      readFileSync(join(project, 'node_modules/kafkasim/package.json'), 'utf8'),
    ) as {
      dependencies: Record<string, string>;
    };
    for (const devTool of ['tsx', 'typescript', 'vitest', 'esbuild', 'echarts'])
      expect(Object.keys(installed.dependencies)).not.toContain(devTool);
    // engines says >=20.19: no package the install resolves may declare a newer Node (npm applies our own lock
    // file and overrides only to our `npm ci`, so this is the user's view). The dependencies pinned for it, and why:
    // docs/package.md "Node 20 and EBADENGINE".
    expect(installWarnings.split('\n').filter((l) => /EBADENGINE/.test(l))).toEqual([]);
    console.log(
      `kafkasim tarball: ${files.length} files, ${(packed.size / 1024).toFixed(0)} kB (${(packed.unpackedSize / 1024 / 1024).toFixed(1)} MB unpacked)`,
    );
  });

  it(
    '1. plain node runs an ESM script: a cluster, a perf test, a scenario; importing loads nothing heavy',
    () => {
      writeFileSync(join(project, 'app.mjs'), APP);
      const out = JSON.parse(ok(run(process.execPath, ['app.mjs']))) as {
        delivery: { acknowledged: number; lost: number; duplicated: number };
        passed: boolean;
        traceHash: string;
        shipped: string[];
        onImport: string[];
      };
      expect(out.delivery).toMatchObject({ acknowledged: 2000, lost: 0, duplicated: 0 });
      expect(out.passed).toBe(true);
      expect(out.traceHash).toMatch(/^[0-9a-f]{16}$/);
      expect(out.shipped).toContain('automq-self-balancing-5-brokers');
      for (const heavy of ['fastify', 'piscina', '@duckdb/node-api', 'tsx', 'typescript', 'echarts'])
        expect(out.onImport, heavy).not.toContain(heavy);
    },
    SPAWNS,
  );

  it(
    "2. npx vitest runs README's library example, verbatim, as README says to (crash.test.ts)",
    () => {
      const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
      const section = readme.slice(readme.indexOf('## Library example'));
      expect(section.replace(/\s+/g, ' ')).toContain(
        'save it as `crash.test.ts` and run `npx vitest run crash.test.ts`',
      );
      const example = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
      expect(example).toContain("from 'kafkasim'");
      writeFileSync(join(project, 'crash.test.ts'), example!);
      const out = ok(run('npx', ['vitest', 'run', 'crash.test.ts']));
      expect(out).toMatch(/Tests\s+1 passed/);
    },
    SPAWNS,
  );

  it(
    '3. tsc --strict checks a consumer against the shipped declarations, and refuses a wrong argument',
    () => {
      writeFileSync(
        join(project, 'consumer.ts'),
        `import {
  type Assignor,
  assignors,
  type ClusterOptions,
  createCluster,
  type DeliveryReport,
  KafkaError,
  parseDuration,
  runScenario,
  type ScenarioResult,
  type TopicPartition,
} from 'kafkasim';

const options: ClusterOptions = { seed: 1, brokers: [{ id: 1, rack: 'a' }, { id: 2, rack: 'b' }], storage: 'shared' };
const cluster = createCluster(options);
cluster.admin.createTopic({ name: 't', partitions: 2, replicationFactor: 1 });
cluster.runFor('1s');
const leader: number = cluster.image.topics.t!.partitions[0]!.leader;
const producer = cluster.producer('p', { flavour: 'librdkafka', config: { acks: 'all' } });
producer.send({ topic: 't', key: 'k', value: 'v' }, (r) => void r);
const report: DeliveryReport = cluster.deliveryReport(producer.id);
const mine: Assignor = {
  name: 'first-member-takes-all',
  assign: ({ partitionsPerTopic, members }) => {
    const all: TopicPartition[] = Object.entries(partitionsPerTopic).flatMap(([topic, n]) =>
      Array.from({ length: n }, (_, partition) => ({ topic, partition })),
    );
    return Object.fromEntries(members.map((m, i) => [m.memberId, i === 0 ? all : []]));
  },
};
const ranged = assignors.range.assign({ partitionsPerTopic: { t: 2 }, members: [{ memberId: 'a', topics: ['t'] }] });
const result: ScenarioResult = runScenario('scenario.yaml', { seed: 3, set: ['topics.0.partitions=4'] });
const ms: number = parseDuration('5s');
const isKafka = (e: unknown): boolean => e instanceof KafkaError;
export { isKafka, leader, mine, ms, ranged, report, result };
`,
      );
      writeFileSync(
        join(project, 'wrong.ts'),
        `import { createCluster } from 'kafkasim';

createCluster({ seed: 1, brokers: 3, storage: 'tape' });
`,
      );
      // One compiler run over both files: the only error must be wrong.ts's (none in consumer.ts or in our .d.ts).
      const r = run('npx', [
        'tsc',
        '--noEmit',
        '--strict',
        '--module',
        'nodenext',
        '--target',
        'es2022',
        'consumer.ts',
        'wrong.ts',
      ]);
      expect(r.status).not.toBe(0);
      expect(r.stdout.trim().split('\n')).toEqual([
        expect.stringMatching(/^wrong\.ts\(3,\d+\): error TS2322: Type '"tape"' is not assignable to type /),
      ]);
    },
    SPAWNS,
  );

  it(
    '4. npx kafkasim runs from the installed package: list, and a run with its HTML report',
    () => {
      expect(ok(run('npx', ['kafkasim', 'list']))).toMatch(/^automq-self-balancing-5-brokers\s/m);
      cpSync(TINY, join(project, 'tiny.yaml'));
      const out = ok(run('npx', ['kafkasim', 'run', 'tiny.yaml', '--report', 'tiny.html']));
      expect(out).toMatch(/PASSED: tiny/);
      const html = readFileSync(join(project, 'tiny.html'), 'utf8');
      expect(html).toMatch(/charts by Apache ECharts 6\.\d+\.\d+, inlined/);
      expect(html.length).toBeGreaterThan(1_000_000);
    },
    SPAWNS,
  );

  it(
    '5. without the optional DuckDB, the Lake says what to install',
    () => {
      const duckdb = join(project, 'node_modules/@duckdb/node-api');
      const aside = `${duckdb}.aside`;
      writeFileSync(
        join(project, 'lake.mjs'),
        `import { createCluster } from 'kafkasim';
try {
  await createCluster({ brokers: 1 }).lake.query('SELECT 1');
  console.log('answered');
} catch (e) {
  console.log(e.code, e.message);
}
`,
      );
      renameSync(duckdb, aside);
      try {
        const out = ok(run(process.execPath, ['lake.mjs']));
        expect(out).toMatch(/^DUCKDB_NOT_INSTALLED .*npm install @duckdb\/node-api/);
      } finally {
        renameSync(aside, duckdb);
      }
      expect(ok(run(process.execPath, ['lake.mjs']))).toBe('answered\n');
    },
    SPAWNS,
  );
  it(
    '6. Node 22 runs the same script and the bin with the same results as Node 20',
    () => {
      const node22Bin = node22();
      writeFileSync(join(project, 'app.mjs'), APP);
      expect(ok(run(node22Bin, ['--version']))).toMatch(/^v22\./);
      // The same results; the packages loaded on import as a set (Node 22 may require them in another order).
      const results = [node22Bin, process.execPath].map((node) => {
        const out = JSON.parse(ok(run(node, ['app.mjs']))) as { onImport: string[] };
        return { ...out, onImport: out.onImport.sort() };
      });
      expect(results[0]).toEqual(results[1]);
      // The bin as a user with Node 22 first on PATH starts it (its `#!/usr/bin/env node` line picks that node).
      cpSync(TINY, join(project, 'tiny.yaml'));
      const withNode = (dir: string) => ({ ...process.env, PATH: `${dir}:${process.env.PATH}` });
      const bin = join(project, 'node_modules/.bin/kafkasim');
      const runs = [dirname(node22Bin), dirname(process.execPath)].map((dir) => {
        const r = spawnSync(bin, ['run', 'tiny.yaml'], {
          cwd: project,
          encoding: 'utf8',
          timeout: SPAWNS,
          killSignal: 'SIGKILL',
          env: { ...withNode(dir), NO_COLOR: '1', NODE_OPTIONS: '' },
        });
        expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
        return /trace hash ([0-9a-f]{16})/.exec(r.stdout)?.[1];
      });
      expect(runs[0]).toMatch(/^[0-9a-f]{16}$/);
      expect(runs[0]).toBe(runs[1]);
    },
    SPAWNS,
  );
});
