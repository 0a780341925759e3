// workloadDone: a workload of a served cluster (POST /sim/workloads) has finished: the HTTP API's condition.
import type { ConditionDefinition } from './condition.ts';

export const workloadDone: ConditionDefinition<string, 'server'> = {
  scope: 'server',
  schema: { type: 'string', minLength: 1, maxLength: 64 },
  syntax: '`<workload name>`',
  description: 'The workload of that name (started with POST /sim/workloads) has finished.',
  check(name, refs, path) {
    refs.checkClient(path, name, [], 'workload');
  },
  evaluate(name, ctx) {
    const done = ctx.workloadDone(name);
    return { passed: done, expected: `workload ${name} done`, actual: done ? 'done' : 'running' };
  },
};
