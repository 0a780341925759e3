// Builds the web UI (ui/) into dist/ui/: esbuild bundles ui/src/main.ts (plain TypeScript, no framework) into one
// minified app.js, and index.html and app.css are copied beside it. `kafkasim serve` serves that folder at `/`
// (src/api/ui/static.ts). Run by `npm run build` (scripts/build.mjs), or alone: `node scripts/build-ui.mjs`.
import { copyFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Builds the UI into `outDir` (default dist/ui); resolves when the files are written. */
export async function buildUi(outDir = join(root, 'dist/ui')) {
  mkdirSync(outDir, { recursive: true });
  await build({
    entryPoints: [join(root, 'ui/src/main.ts')],
    bundle: true,
    minify: true,
    format: 'iife',
    target: ['chrome110', 'firefox110', 'safari16'],
    outfile: join(outDir, 'app.js'),
    legalComments: 'none',
    logLevel: 'warning',
  });
  for (const file of ['index.html', 'app.css']) copyFileSync(join(root, 'ui', file), join(outDir, file));
  return outDir;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await buildUi();
