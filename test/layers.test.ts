// The dependency rules of docs/architecture.md, checked on every import (type-only ones too) of every .ts file
// under models/ and src/: models/ imports nothing outside itself (src -> models is the only arrow between the two
// top folders), the kernel (models/sim) imports no model, and a model folder imports only folders of a lower
// layer, so that the model folders cannot form a cycle; the same holds for the folders of src/ (and the files
// directly in src/), with layers of their own.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');

/**
 * The layer of each model folder (docs/architecture.md "Dependency rules"): a folder imports only folders of a
 * lower layer. A new folder needs a line here, which is the moment to decide where it sits.
 */
const MODEL_LAYERS: Readonly<Record<string, number>> = {
  'models/sim': 0,
  'models/metadata': 1,
  'models/storage': 1,
  'models/protocol': 2,
  'models/raft': 3,
  'models/group': 3,
  'models/controller': 4,
  'models/broker': 4,
  'models/clients': 4,
  'models/balancer': 5,
  'models/lake': 5,
};

/**
 * The layer of each part of src/ (docs/architecture.md "Dependency rules"): its folders, and the files directly in
 * src/ (two leaf helpers below everything, the library entry above everything). As for models, a part imports only
 * parts of a lower layer, so src/ has no cycle between folders either.
 */
const SRC_LAYERS: Readonly<Record<string, number>> = {
  'src/did-you-mean.ts': 0,
  'src/package-files.ts': 0,
  'src/format': 1,
  'src/cluster': 2,
  'src/wire': 3,
  'src/scenario': 3,
  'src/report': 4,
  'src/api': 4,
  'src/sweep': 5,
  'src/cli': 6,
  'src/index.ts': 7,
};

/** Every relative import of `file` (repository-relative), resolved to a repository-relative path. */
function importsOf(file: string, source: string): string[] {
  const { importedFiles } = ts.preProcessFile(source, true, true);
  return importedFiles
    .map((f) => f.fileName)
    .filter((name) => name.startsWith('.'))
    .map((name) => normalize(join(dirname(file), name)));
}

function tsFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => join(dir, f));
}

/**
 * The part a path belongs to for these rules: `models/<x>` and `src/<x>` for the folders (and the files directly
 * in src/, each its own part), the top folder for anything else.
 */
function folderOf(path: string): string {
  const [top, sub] = path.split('/');
  if ((top === 'models' || top === 'src') && sub !== undefined) return `${top}/${sub}`;
  return top ?? path;
}

/** The rule inside src/: a part imports only parts of a lower layer (models/ is below all of them). */
function brokenSrcRules(file: string, from: string, imports: readonly string[]): string[] {
  const layer = SRC_LAYERS[from];
  if (layer === undefined)
    return [`${file}: ${from} has no layer in SRC_LAYERS (test/layers.test.ts, docs/architecture.md)`];
  const broken: string[] = [];
  for (const target of imports) {
    const to = folderOf(target);
    if (to === from || !to.startsWith('src/')) continue;
    const toLayer = SRC_LAYERS[to];
    if (toLayer === undefined || toLayer >= layer)
      broken.push(
        `${file} imports ${target}: ${from} (layer ${layer}) may import only lower layers, ${to} is ${toLayer ?? 'unknown'}`,
      );
  }
  return broken;
}

/** The rules over an import graph (file -> the files it imports); returns one line per broken rule. */
function brokenRules(graph: ReadonlyMap<string, readonly string[]>): string[] {
  const broken: string[] = [];
  for (const [file, imports] of graph) {
    const from = folderOf(file);
    if (from.startsWith('src/')) {
      broken.push(...brokenSrcRules(file, from, imports));
      continue;
    }
    if (!from.startsWith('models/')) continue;
    const layer = MODEL_LAYERS[from];
    if (layer === undefined) {
      broken.push(
        `${file}: ${from} has no layer in MODEL_LAYERS (test/layers.test.ts, docs/architecture.md)`,
      );
      continue;
    }
    for (const target of imports) {
      const to = folderOf(target);
      if (to === from) continue;
      if (!to.startsWith('models/')) {
        broken.push(`${file} imports ${target}: models/ imports nothing outside models/`);
        continue;
      }
      const toLayer = MODEL_LAYERS[to];
      if (toLayer === undefined || toLayer >= layer)
        broken.push(
          `${file} imports ${target}: ${from} (layer ${layer}) may import only lower layers, ${to} is ${toLayer ?? 'unknown'}`,
        );
    }
  }
  return broken;
}

function repositoryGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of [...tsFiles('models'), ...tsFiles('src')])
    graph.set(file, importsOf(file, readFileSync(join(ROOT, file), 'utf8')));
  return graph;
}

describe('dependency rules (docs/architecture.md)', () => {
  const graph = repositoryGraph();

  it('hold for every import in models/ and src/', () => {
    expect(brokenRules(graph)).toEqual([]);
  });

  it('every model folder has a layer, and every layer names a folder that exists', () => {
    const folders = readdirSync(join(ROOT, 'models'), { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => `models/${d.name}`)
      .sort();
    expect(Object.keys(MODEL_LAYERS).sort()).toEqual(folders);
  });

  it('every part of src/ has a layer, and every layer names a folder or file that exists', () => {
    const parts = readdirSync(join(ROOT, 'src'), { withFileTypes: true })
      .filter((d) => d.isDirectory() || d.name.endsWith('.ts'))
      .map((d) => `src/${d.name}`)
      .sort();
    expect(Object.keys(SRC_LAYERS).sort()).toEqual(parts);
  });

  it('nothing in src/ imports tests, scripts or the UI sources', () => {
    const outside = [...graph]
      .filter(([file]) => file.startsWith('src/'))
      .flatMap(([file, imports]) =>
        imports
          .filter((t) => !t.startsWith('src/') && !t.startsWith('models/'))
          .map((t) => `${file} imports ${t}`),
      );
    expect(outside).toEqual([]);
  });

  it('sees the imports it checks (a file known to import the kernel)', () => {
    expect(graph.get('models/raft/raft-client.ts')).toContain('models/sim/index.ts');
  });

  it('reports each kind of broken rule', () => {
    const bad = new Map<string, string[]>([
      ['models/sim/queue.ts', ['models/broker/broker.ts']],
      ['models/storage/log.ts', ['src/cluster/index.ts']],
      ['models/metadata/image.ts', ['models/raft/raft-log.ts', 'models/sim/index.ts']],
      ['models/newthing/x.ts', ['models/sim/index.ts']],
      ['models/broker/a.ts', ['models/broker/b.ts', 'models/clients/c.ts']],
      ['src/cluster/cluster.ts', ['models/lake/lake.ts']],
      ['src/wire/listen.ts', ['src/api/host.ts', 'src/cluster/index.ts']],
      ['src/api/server.ts', ['src/wire/index.ts', 'src/api/host.ts', 'src/sweep/index.ts']],
      ['src/did-you-mean.ts', ['src/index.ts']],
      ['src/newthing/x.ts', ['src/cluster/index.ts']],
    ]);
    expect(brokenRules(bad)).toEqual([
      'models/sim/queue.ts imports models/broker/broker.ts: models/sim (layer 0) may import only lower layers, models/broker is 4',
      'models/storage/log.ts imports src/cluster/index.ts: models/ imports nothing outside models/',
      'models/metadata/image.ts imports models/raft/raft-log.ts: models/metadata (layer 1) may import only lower layers, models/raft is 3',
      'models/newthing/x.ts: models/newthing has no layer in MODEL_LAYERS (test/layers.test.ts, docs/architecture.md)',
      'models/broker/a.ts imports models/clients/c.ts: models/broker (layer 4) may import only lower layers, models/clients is 4',
      'src/wire/listen.ts imports src/api/host.ts: src/wire (layer 3) may import only lower layers, src/api is 4',
      'src/api/server.ts imports src/sweep/index.ts: src/api (layer 4) may import only lower layers, src/sweep is 5',
      'src/did-you-mean.ts imports src/index.ts: src/did-you-mean.ts (layer 0) may import only lower layers, src/index.ts is 7',
      'src/newthing/x.ts: src/newthing has no layer in SRC_LAYERS (test/layers.test.ts, docs/architecture.md)',
    ]);
  });
});
