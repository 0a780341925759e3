// The vitest configuration Stryker runs (npm run mutation): the project's, narrowed to the test files that guard
// the module being mutated (KAFKASIM_MUTATION_TESTS, comma-separated globs), so that each mutant runs only them.
import { defineConfig } from 'vitest/config';
import base from '../../vitest.config.ts';

const tests = process.env.KAFKASIM_MUTATION_TESTS;
if (!tests) throw new Error('KAFKASIM_MUTATION_TESTS must name the test files (npm run mutation sets it)');

export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: tests.split(','),
    benchmark: undefined,
  },
});
