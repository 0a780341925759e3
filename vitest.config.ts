import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    // Two workers on the 2-core CI machine. With one, the project's CI took 1010 s for the whole run (vitest 922 s),
    // over its 15 minute budget; two ran the suite in 680 s instead of 977 s on the development machine. An earlier
    // two-worker CI run timed out at 5400 s, every file it printed passed and no summary came: a file stalled in a
    // synchronous child, the likeliest two files running `npm ci` into tools/node22 at once. That is now done once,
    // before any worker starts (test/global-setup.ts); every synchronous child has a timeout, and test/watchdog.ts
    // ends a file that still blocks its worker after KAFKASIM_TEST_FILE_LIMIT_S (300 s here), naming it.
    maxWorkers: 2,
    testTimeout: 60_000,
    // Installs the Node 22 tools once, before any worker starts (see the file).
    globalSetup: ['test/global-setup.ts'],
    // Ends a test file that blocks its worker for 5 minutes, naming it (see the file).
    setupFiles: ['test/watchdog.ts'],
    benchmark: { include: ['test/bench/**/*.bench.ts'] },
  },
});
