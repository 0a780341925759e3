// Runs once in vitest's main process before any test file starts. The Node 22 tools (test/node22-tools.ts) are
// installed here, one after the other, instead of lazily by the first test file that needs them: with two workers,
// test/package/package.test.ts and test/wire/consumer-group-protocol.test.ts could both find tools/node22 missing and
// run `npm ci` into the same folder at once. If the install fails here (offline), the run goes on and the tests that
// need the tools try again and fail with npm's message.
import { node22Tool } from './node22-tools.ts';

export function setup(): void {
  try {
    node22Tool('platformatic-kafka');
  } catch (e) {
    console.warn(`test/global-setup.ts: installing the Node 22 tools failed: ${(e as Error).message}`);
  }
}
