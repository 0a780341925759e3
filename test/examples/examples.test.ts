// The shipped examples/ for sweeps on many machines, checked as their job runner would run them: each file parses
// as YAML (no duplicate keys); its kafkasim commands are read from the parsed manifest with the runner's environment
// (Kubernetes JOB_COMPLETION_INDEX, GitHub Actions strategy.job-index/job-total, GitLab CI_NODE_INDEX/CI_NODE_TOTAL),
// and every shard's command is run with --dry-run: it must take exactly the shard the runner means (`--shard auto`
// reading those variables), the shards together must cover the whole sweep once, and each must write its own part
// where the merge step reads. The merge command then runs for real on parts at those paths, and must write the
// report. The pinned kafkasim version is the package's, so that the examples change with a release.
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { bufferIO } from '../../src/cli/io.ts';
import { main } from '../../src/cli/main.ts';
import { type Env, shellCommands } from './shell-words.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const EXAMPLES = join(ROOT, 'examples');
const TINY = fileURLToPath(new URL('../sweep/fixtures/tiny.yaml', import.meta.url));
// GitHub Actions expressions, as the workflow spells them (not JavaScript templates).
// biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub Actions expression
const JOB_INDEX = '${{ strategy.job-index }}';
// biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub Actions expression
const JOB_TOTAL = '${{ strategy.job-total }}';
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

// biome-ignore lint/suspicious/noExplicitAny: manifests are checked field by field below
type Doc = any;
function documents(file: string): Doc[] {
  const docs = parseAllDocuments(readFileSync(join(EXAMPLES, file), 'utf8'), { uniqueKeys: true });
  const list = Array.isArray(docs) ? docs : [docs];
  for (const d of list) {
    expect(d.errors, `${file}: ${d.errors.join('; ')}`).toEqual([]);
    expect(d.warnings, `${file}: ${d.warnings.join('; ')}`).toEqual([]);
  }
  return list.map((d) => d.toJS());
}

/** The kafkasim commands of a script: the words after `npx --yes kafkasim@VERSION` (whose version is checked). */
function kafkasimCommands(script: string, env: Env): string[][] {
  const found = shellCommands(script, env).filter((words) => words.some((w) => w.startsWith('kafkasim')));
  for (const words of found) {
    const at = words[0] === 'exec' ? 1 : 0;
    expect(words.slice(at, at + 3)).toEqual(['npx', '--yes', `kafkasim@${VERSION}`]);
  }
  return found.map((words) => words.slice(words.indexOf(`kafkasim@${VERSION}`) + 1));
}

async function kafkasim(argv: string[], env: Env = {}) {
  const io = { ...bufferIO(), env: { ...env } };
  const code = await main(argv, io);
  return { code, out: io.text(), err: io.errors() };
}

/** The value of a flag in argv (`--out X`). */
const flag = (argv: string[], name: string) => {
  const i = argv.indexOf(name);
  return i < 0 ? undefined : argv[i + 1];
};

/**
 * Runs each shard's command with --dry-run in the environment the runner gives shard i (0-based) of n; checks the
 * shard it takes and returns each shard's part path and run count.
 */
async function dryRunShards(
  n: number,
  commandOf: (i: number) => { argv: string[]; env: Env },
  source: RegExp,
) {
  const parts: string[] = [];
  let runs = 0;
  let whole: string | undefined;
  for (let i = 0; i < n; i++) {
    const { argv, env } = commandOf(i);
    expect(argv.slice(0, 2)).toEqual(['sweep', 'whatif-partitions']);
    expect(flag(argv, '--shard')).toBe('auto');
    const r = await kafkasim([...argv, '--dry-run'], env);
    expect(r.code, r.err).toBe(0);
    expect(r.err).toMatch(new RegExp(`^Shard ${i + 1}/${n} \\(from ${source.source}`, 'm'));
    const m =
      /^Would sweep whatif-partitions: shard (\d+)\/(\d+), (\d+) runs? in \d+ cells? \(of (.*)\)$/m.exec(
        r.out,
      );
    expect(m, r.out).not.toBeNull();
    expect([Number(m![1]), Number(m![2])]).toEqual([i + 1, n]);
    runs += Number(m![3]);
    whole ??= m![4];
    expect(m![4]).toBe(whole);
    parts.push(flag(argv, '--out')!);
  }
  // Every run in exactly one shard: the shards' runs add up to the whole sweep's.
  expect(`${runs} runs`).toBe(/= (\d+ runs)$/.exec(whole!)![1]);
  expect(new Set(parts).size).toBe(n);
  return parts;
}

/** Parts of a small real sweep in n shards (the tiny fixture, so that the merge has something real to merge). */
let partsOf: (n: number) => string[];
beforeAll(async () => {
  const cache = new Map<number, string[]>();
  const dir = mkdtempSync(join(tmpdir(), 'kafkasim-example-parts-'));
  // The shards at once: each starts a thread, which loads kafkasim's sources (most of the time here).
  const made = async (n: number) =>
    Promise.all(
      Array.from({ length: n }, async (_, i) => {
        const file = join(dir, `${n}-${i + 1}.json`);
        const args = [
          'sweep',
          TINY,
          '--grid',
          'topics.0.partitions=2,4',
          '--seeds',
          '2',
          '--metrics',
          'acked',
        ];
        const r = await kafkasim([...args, '--parallel', '1', '--shard', `${i + 1}/${n}`, '--out', file]);
        expect(r.code, r.err).toBe(0);
        return file;
      }),
    );
  for (const n of [4]) cache.set(n, await made(n));
  partsOf = (n) => cache.get(n) ?? [];
}, 120_000);

/** Copies the parts to the paths the shards write (relative to `dir`), runs the merge command there. */
async function mergeAt(dir: string, partPaths: string[], argv: string[]) {
  const parts = partsOf(partPaths.length);
  expect(parts).toHaveLength(partPaths.length);
  partPaths.forEach((p, i) => {
    mkdirSync(dirname(join(dir, p)), { recursive: true });
    copyFileSync(parts[i]!, join(dir, p));
  });
  const cwd = process.cwd();
  process.chdir(dir);
  try {
    return await kafkasim(argv);
  } finally {
    process.chdir(cwd);
  }
}

function expectMerged(r: { code: number; out: string; err: string }, dir: string, files: string[]) {
  expect(r.code, r.err).toBe(0);
  expect(r.out).toMatch(/^2 cells, 4 runs in .* wall; CSV written to .*; report written to /m);
  for (const f of files) expect(existsSync(join(dir, f)), f).toBe(true);
  const html = files.find((f) => f.endsWith('.html'));
  expect(readFileSync(join(dir, html!), 'utf8')).toMatch(/^<!doctype html>/i);
}

describe('examples/', { timeout: 120_000 }, () => {
  it('has a README naming every example file', () => {
    const readme = readFileSync(join(EXAMPLES, 'README.md'), 'utf8');
    const files = readdirSync(EXAMPLES, { recursive: true, encoding: 'utf8' }).filter((f) =>
      /\.ya?ml$/.test(f),
    );
    expect(files.length).toBeGreaterThanOrEqual(5);
    for (const f of files) expect(readme, f).toContain(f);
  });

  it('kubernetes/sweep-job.yaml and merge-pod.yaml: an Indexed Job of N shards and a merge of their parts', async () => {
    const [claim, job] = documents('kubernetes/sweep-job.yaml');
    expect([claim.kind, job.kind]).toEqual(['PersistentVolumeClaim', 'Job']);
    expect(job.apiVersion).toBe('batch/v1');
    expect(job.spec.completionMode).toBe('Indexed');
    const n: number = job.spec.completions;
    expect(job.spec.parallelism).toBe(n);
    const pod = job.spec.template.spec;
    expect(pod.restartPolicy).toBe('Never');
    const [container] = pod.containers;
    expect(container.command).toEqual(['sh', '-c']);
    const env = Object.fromEntries(
      (container.env ?? []).map((e: { name: string; value: string }) => [e.name, e.value]),
    );
    const mount = container.volumeMounts[0];
    expect(pod.volumes[0].persistentVolumeClaim.claimName).toBe(claim.metadata.name);
    const parts = await dryRunShards(
      n,
      (i) => {
        const [argv, ...rest] = kafkasimCommands(container.args[0], {
          ...env,
          JOB_COMPLETION_INDEX: String(i),
        });
        expect(rest).toEqual([]);
        expect(flag(argv!, '--shard-count')).toBe(String(n)); // the pod cannot see spec.completions
        expect(flag(argv!, '--parallel')).toBe(container.resources.requests.cpu);
        return { argv: argv!, env: { ...env, JOB_COMPLETION_INDEX: String(i) } };
      },
      /Kubernetes JOB_COMPLETION_INDEX=\d+, --shard-count \d+/,
    );
    for (const p of parts) expect(p.startsWith(`${mount.mountPath}/`), p).toBe(true);

    const [merge] = documents('kubernetes/merge-pod.yaml');
    expect(merge.kind).toBe('Pod');
    expect(merge.spec.volumes[0].persistentVolumeClaim.claimName).toBe(claim.metadata.name);
    const init = merge.spec.initContainers[0];
    const [argv] = kafkasimCommands(init.args[0], {});
    expect(init.volumeMounts[0].mountPath).toBe(mount.mountPath);
    for (const c of merge.spec.containers) expect(c.volumeMounts[0].mountPath).toBe(mount.mountPath);
    // The volume is a folder here: its mount path becomes relative to the test's folder.
    const local = (p: string) => (p.startsWith(`${mount.mountPath}/`) || p === mount.mountPath ? `.${p}` : p);
    const dir = mkdtempSync(join(tmpdir(), 'kafkasim-example-k8s-'));
    const r = await mergeAt(dir, parts.map(local), argv!.map(local));
    expectMerged(r, dir, [local(flag(argv!, '--report')!), local(flag(argv!, '--csv')!)]);
  });

  it('github-actions/kafkasim-sweep.yml: a matrix job per shard, a merge job that downloads their parts', async () => {
    const [workflow] = documents('github-actions/kafkasim-sweep.yml');
    const shard = workflow.jobs.shard;
    const n: number = shard.strategy.matrix.shard.length;
    expect(shard.strategy['fail-fast']).toBe(false);
    const sweepStep = shard.steps.find((s: Doc) => typeof s.run === 'string' && s.run.includes('kafkasim'));
    // The runner replaces the only expressions allowed in the step's env.
    const expressions = (i: number): Record<string, string> => ({
      [JOB_INDEX]: String(i),
      [JOB_TOTAL]: String(n),
    });
    const envOf = (i: number): Env =>
      Object.fromEntries(
        Object.entries(sweepStep.env as Record<string, string>).map(([k, v]) => {
          const value = expressions(i)[v];
          expect(value, `${k}: ${v}`).toBeDefined();
          return [k, value!];
        }),
      );
    expect(sweepStep.run).not.toContain('${{');
    const parts = await dryRunShards(
      n,
      (i) => {
        const [argv, ...rest] = kafkasimCommands(sweepStep.run, envOf(i));
        expect(rest).toEqual([]);
        return { argv: argv!, env: envOf(i) };
      },
      /KAFKASIM_SHARD_INDEX=\d+, KAFKASIM_SHARD_COUNT=\d+/,
    );
    // Each part is uploaded under its own name, and the merge job downloads them all into one folder.
    const upload = shard.steps.find((s: Doc) => s.uses?.startsWith('actions/upload-artifact@'));
    const folder = upload.with.path.replace(/\/$/, '');
    for (const p of parts) expect(dirname(p)).toBe(folder);
    expect(upload.with.name).toContain(JOB_INDEX);
    const merge = workflow.jobs.merge;
    expect(merge.needs).toBe('shard');
    const download = merge.steps.find((s: Doc) => s.uses?.startsWith('actions/download-artifact@'));
    expect(download.with['merge-multiple']).toBe(true);
    expect(upload.with.name.replace(JOB_INDEX, '7')).toMatch(
      new RegExp(`^${download.with.pattern.replace('*', '.*')}$`),
    );
    const mergeStep = merge.steps.find((s: Doc) => typeof s.run === 'string' && s.run.includes('kafkasim'));
    const [argv] = kafkasimCommands(mergeStep.run, {});
    expect(argv!.slice(0, 3)).toEqual(['sweep', 'merge', download.with.path]);
    const dir = mkdtempSync(join(tmpdir(), 'kafkasim-example-gha-'));
    const r = await mergeAt(dir, parts, argv!);
    const report = merge.steps.at(-1);
    expect(report.if).toBe('always()');
    expectMerged(r, dir, report.with.path.trim().split('\n'));
  });

  it('gitlab/kafkasim-sweep.gitlab-ci.yml: parallel shards, a merge job that gets their parts', async () => {
    const [pipeline] = documents('gitlab/kafkasim-sweep.gitlab-ci.yml');
    const shard = pipeline['kafkasim-sweep'];
    const n: number = shard.parallel;
    const script = (shard.script as string[]).join('\n');
    const envOf = (i: number): Env => ({ CI_NODE_INDEX: String(i + 1), CI_NODE_TOTAL: String(n) });
    const parts = await dryRunShards(
      n,
      (i) => {
        const [argv, ...rest] = kafkasimCommands(script, envOf(i));
        expect(rest).toEqual([]);
        return { argv: argv!, env: envOf(i) };
      },
      /GitLab CI_NODE_INDEX=\d+, CI_NODE_TOTAL=\d+/,
    );
    for (const p of parts)
      expect(
        shard.artifacts.paths.some((a: string) => p.startsWith(a)),
        p,
      ).toBe(true);
    const merge = pipeline['kafkasim-merge'];
    expect(pipeline.stages.indexOf(merge.stage)).toBeGreaterThan(pipeline.stages.indexOf(shard.stage));
    expect(merge.needs).toEqual(['kafkasim-sweep']);
    const [argv, ...rest] = kafkasimCommands((merge.script as string[]).join('\n'), {});
    expect(rest).toEqual([]);
    const dir = mkdtempSync(join(tmpdir(), 'kafkasim-example-gitlab-'));
    const r = await mergeAt(dir, parts, argv!);
    expect(merge.artifacts.when).toBe('always');
    expectMerged(r, dir, merge.artifacts.paths);
  });

  it('kubernetes/queue-workers.yaml: workers of the queue at the Redis service it defines', async () => {
    const [redis, service, workers] = documents('kubernetes/queue-workers.yaml');
    expect([redis.kind, service.kind, workers.kind]).toEqual(['Deployment', 'Service', 'Deployment']);
    expect(service.spec.selector).toEqual(redis.spec.template.metadata.labels);
    expect(redis.spec.template.spec.containers[0].args).toContain('noeviction');
    const container = workers.spec.template.spec.containers[0];
    const [argv, ...rest] = kafkasimCommands(container.args[0], {});
    expect(rest).toEqual([]);
    expect(argv![0]).toBe('worker');
    expect(flag(argv!, '--queue')).toBe(`redis://${service.metadata.name}:${service.spec.ports[0].port}/0`);
    expect(flag(argv!, '--concurrency')).toBe(container.resources.requests.cpu);
    // The flags are valid: the worker gets as far as connecting (no such host here), then says so with exit 2.
    const r = await kafkasim(argv!);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^kafkasim worker: --queue redis:\/\/kafkasim-redis:6379\/0: cannot reach Redis/m);
  });
});
