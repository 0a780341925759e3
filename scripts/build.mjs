// `npm run build` (also run by `prepare` and `prepack`): the package as it ships, in dist/.
//   1. tsc (tsconfig.build.json): src/ and models/ to ESM JavaScript, declarations and source maps.
//   2. The scenario schema's validator precompiled to dist/src/scenario/scenario-validator.cjs (ajv's standalone
//      code; see src/scenario/precompile-validator.ts): runs and sweep workers skip compiling the schema.
//   3. Apache ECharts' minified browser build, which reports inline, copied to dist/vendor/echarts/ with its
//      licence and notices (Apache-2.0; zrender's and d3's BSD licences for the parts it bundles), so that the
//      package needs only that one file of echarts (1 MB) instead of the whole echarts package (60 MB).
//   4. The web UI (ui/) bundled by esbuild into dist/ui/ (scripts/build-ui.mjs), which `kafkasim serve` serves at /.
// `npm pack` runs both prepare and prepack, and CI's `npm ci` has built already: when no input changed since the last
// build (the path, size and mtime of every file under src/ and models/, the tsconfigs, package.json, the lock file and
// this script), the build says so and stops. Even an incremental tsc with nothing to do costs ~5 s of CPU here.
// `node scripts/build.mjs --force` builds regardless.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(root, 'package.json'));

const STAMP = join(root, 'dist/.build-inputs');
const OUTPUTS = [
  'dist/src/index.js',
  'dist/src/scenario/scenario-validator.cjs',
  'dist/vendor/echarts/echarts.min.js',
  'dist/ui/app.js',
];
const inputs = createHash('sha256');
const walk = (rel) => {
  const st = statSync(join(root, rel));
  if (!st.isDirectory()) return inputs.update(`${rel} ${st.size} ${st.mtimeMs}\n`);
  for (const name of readdirSync(join(root, rel)).sort()) walk(`${rel}/${name}`);
};
for (const rel of [
  'src',
  'models',
  'ui',
  'tsconfig.json',
  'tsconfig.build.json',
  'package.json',
  'package-lock.json',
])
  walk(rel);
walk('scripts/build.mjs');
walk('scripts/build-ui.mjs');
const digest = `${inputs.digest('hex')} node ${process.version}\n`;
if (
  !process.argv.includes('--force') &&
  OUTPUTS.every((f) => existsSync(join(root, f))) &&
  existsSync(STAMP) &&
  readFileSync(STAMP, 'utf8') === digest
) {
  console.log('kafkasim build: dist/ is up to date (no input changed since the last build)');
  process.exit(0);
}

const tsc = spawnSync(
  process.execPath,
  [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.build.json'],
  {
    cwd: root,
    stdio: 'inherit',
  },
);
if (tsc.status !== 0) process.exit(tsc.status ?? 1);

const { scenarioValidatorSource, VALIDATOR_FILE } = await import(
  join(root, 'dist/src/scenario/precompile-validator.js')
);
writeFileSync(join(root, 'dist/src/scenario', VALIDATOR_FILE), scenarioValidatorSource());

const echarts = dirname(require.resolve('echarts/package.json'));
const zrender = dirname(createRequire(join(echarts, 'package.json')).resolve('zrender/package.json'));
const vendor = join(root, 'dist/vendor/echarts');
mkdirSync(vendor, { recursive: true });
for (const [from, to] of [
  [join(echarts, 'dist/echarts.min.js'), 'echarts.min.js'],
  [join(echarts, 'LICENSE'), 'LICENSE'],
  [join(echarts, 'NOTICE'), 'NOTICE'],
  [join(echarts, 'licenses/LICENSE-d3'), 'LICENSE-d3'],
  [join(zrender, 'LICENSE'), 'LICENSE-zrender'],
])
  copyFileSync(from, join(vendor, to));
const { version } = JSON.parse(readFileSync(join(echarts, 'package.json'), 'utf8'));
writeFileSync(join(vendor, 'package.json'), `${JSON.stringify({ name: 'echarts', version }, null, 2)}\n`);
const { buildUi } = await import('./build-ui.mjs');
await buildUi(join(root, 'dist/ui'));
writeFileSync(STAMP, digest);
