import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    // One worker (vitest's default on 2 cores, said here on purpose). Two workers ran the suite in 680 s instead of
    // 977 s on the development machine, but the project's CI, which passed in 742 s with one, timed out at 5400 s
    // with two, every file it printed passed and no summary came: a file stalled in a synchronous child. The likeliest: two
    // files running `npm ci` into tools/node22 at once (now done once, in test/global-setup.ts); until two workers
    // have passed there, the suite keeps the configuration CI has passed with. test/watchdog.ts ends a stalled file.
    maxWorkers: 1,
    testTimeout: 60_000,
    // Installs the Node 22 tools once, before any worker starts (see the file).
    globalSetup: ['test/global-setup.ts'],
    // Ends a test file that blocks its worker for 15 minutes, naming it (see the file).
    setupFiles: ['test/watchdog.ts'],
    benchmark: { include: ['test/bench/**/*.bench.ts'] },
  },
});
