// not: the condition does not hold.
import { ref } from '../schema-kit.ts';
import type { Condition } from '../types.ts';
import { type ConditionDefinition, lazyOutcome } from './condition.ts';

export const not: ConditionDefinition<Condition, 'cluster'> = {
  scope: 'cluster',
  schema: ref('condition'),
  syntax: '`<condition>`',
  description: 'The condition does not hold.',
  check: (c, refs, path) => refs.checkCondition(c, path),
  children: (c) => [c],
  evaluate(c, _ctx, sub) {
    const r = sub(c);
    return lazyOutcome(
      !r.passed,
      () => `not (${r.expected})`,
      () => r.actual,
    );
  },
};
