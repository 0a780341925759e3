// Stryker's configuration for npm run mutation (scripts/mutation.sh sets the module through the environment):
// KAFKASIM_MUTATE is the comma-separated mutate globs, KAFKASIM_MUTATION_NAME names the module's report and
// incremental file under reports/mutation/.
const name = process.env.KAFKASIM_MUTATION_NAME;
const mutate = process.env.KAFKASIM_MUTATE;
if (!name || !mutate) throw new Error('run Stryker through npm run mutation (it sets the module to mutate)');

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  plugins: ['@stryker-mutator/vitest-runner'],
  vitest: { configFile: 'tools/mutation/vitest.config.ts', related: false },
  // Each mutant runs only the tests that cover it.
  coverageAnalysis: 'perTest',
  // The machine's two cores are shared: one test process at a time, unless KAFKASIM_MUTATION_CONCURRENCY says more.
  concurrency: Number(process.env.KAFKASIM_MUTATION_CONCURRENCY ?? 1),
  incremental: true,
  incrementalFile: `reports/mutation/${name}.incremental.json`,
  mutate: mutate.split(','),
  reporters: ['json', 'clear-text', 'progress'],
  jsonReporter: { fileName: `reports/mutation/${name}.json` },
  clearTextReporter: { allowEmojis: false, logTests: false, reportScoreTable: true },
  ignorePatterns: [
    'tools/node22',
    'tools/mutation/node_modules',
    'reports',
    'test-artifacts',
    '.stryker-tmp',
  ],
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
  timeoutFactor: 2,
  timeoutMS: 10000,
  thresholds: { high: 90, low: 85, break: null },
};
