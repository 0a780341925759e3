// lakeOutage: the Lake refuses loads and queries for a while.
import { ref } from '../schema-kit.ts';
import type { StepDefinition } from './step.ts';

export const lakeOutage: StepDefinition<string> = {
  schema: ref('duration'),
  syntax: "`'20s'`",
  description:
    "Makes the Lake unavailable for this long from now: the sink's loads fail and are retried with backoff (1 s × 2^n, capped at maxRetryDelay, 10 attempts) and the HTTP API refuses connections. The step does not wait for the outage to end.",
  describe: (d) => `# the Lake is unavailable for ${d}`,
  execute(d, { cluster }) {
    cluster.lake.outage(d, (delay, fn) => cluster.sim.schedule(delay, fn, 'lake.outage-end'));
    return undefined;
  },
};
