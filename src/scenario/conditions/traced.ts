// traced: a trace event of a kind happened: since a waitUntil began, or (in an expectation) since the timeline
// started. Kinds are the trace's own (`controller.session-expired`, `broker.`...): a prefix matches them all.
import { object } from '../schema-kit.ts';
import type { ConditionDefinition } from './condition.ts';

export const traced: ConditionDefinition<{ kind: string }, 'cluster'> = {
  scope: 'cluster',
  schema: object(
    {
      kind: {
        type: 'string',
        minLength: 1,
        maxLength: 200,
        description: 'A trace event kind, or its prefix (e.g. `controller.session-expired`, `broker.`).',
      },
    },
    ['kind'],
  ),
  syntax: '`{kind}`',
  description:
    'A trace event whose kind starts with `kind` happened since the wait began (in an expectation: since the timeline started).',
  arm: (v, ctx) => ctx.traces?.arm(v.kind),
  evaluate(v, ctx) {
    const seen = ctx.traces?.seen(v.kind) ?? false;
    return { passed: seen, expected: `a trace event ${v.kind}*`, actual: seen ? 'seen' : 'not seen' };
  },
};
