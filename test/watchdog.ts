// A per-file wall-clock limit that still works when a test blocks its worker's event loop (a spawnSync that never
// returns, a loop that never ends): vitest's own timeouts are timers on that same blocked thread, so such a file
// would hold the whole run until CI kills it, with no word of which file it was. A worker thread (its own event loop)
// waits KAFKASIM_TEST_FILE_LIMIT_S seconds (default 300; the slowest file takes ~60-90 s on the 2-core CI machine),
// then prints the file's name and kills the test process, which vitest reports as that file's failure
// ("Worker exited unexpectedly") and the run ends.
import { Worker } from 'node:worker_threads';
import { afterAll, expect } from 'vitest';

const limitS = Number(process.env.KAFKASIM_TEST_FILE_LIMIT_S ?? 300);
const file = expect.getState().testPath ?? 'a test file';
const watchdog = new Worker(
  `const { workerData } = require('node:worker_threads');
   setTimeout(() => {
     require('node:fs').writeSync(2, '\\ntest/watchdog.ts: ' + workerData.file + ' still running after ' +
       workerData.limitS + ' s of wall time: killing its test process so that the run ends\\n');
     process.kill(workerData.pid, 'SIGKILL');
   }, workerData.limitS * 1000);`,
  { eval: true, workerData: { file, limitS, pid: process.pid } },
);
watchdog.unref();
afterAll(() => watchdog.terminate());
