// any: at least one condition in the list holds.
import { ref } from '../schema-kit.ts';
import type { Condition } from '../types.ts';
import { type ConditionDefinition, lazyOutcome } from './condition.ts';

export const any: ConditionDefinition<Condition[], 'cluster'> = {
  scope: 'cluster',
  schema: { type: 'array', items: ref('condition'), minItems: 1 },
  syntax: '`[<condition>, ...]`',
  description: 'At least one condition in the list holds.',
  check(list, refs, path) {
    for (const [i, c] of list.entries()) refs.checkCondition(c, [...path, i]);
  },
  children: (list) => list,
  evaluate(list, _ctx, sub) {
    const results = list.map(sub);
    return lazyOutcome(
      results.some((r) => r.passed),
      () => `any of: ${results.map((r) => r.expected).join('; ')}`,
      () => results.map((r) => r.actual),
    );
  },
};
