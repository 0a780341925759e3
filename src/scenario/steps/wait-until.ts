// waitUntil: runs until a condition holds (the step ends at that moment), or gives up after a timeout.
import { formatDuration, parseDuration, SimTimeoutError } from '../../../models/sim/index.ts';
import { object, ref, withDescription } from '../schema-kit.ts';
import type { Condition } from '../types.ts';
import { type StepDefinition, StepFailure } from './step.ts';

export interface WaitUntilSpec {
  condition: Condition;
  timeout: string;
  poll?: string;
  onTimeout?: 'fail' | 'continue';
}

export const waitUntil: StepDefinition<WaitUntilSpec> = {
  schema: object(
    {
      condition: ref('condition'),
      timeout: withDescription(ref('duration'), 'Give up after this much virtual time.'),
      poll: withDescription(
        ref('duration'),
        'Check the condition at most this often (default 1ms; it is checked after events).',
      ),
      onTimeout: {
        type: 'string',
        enum: ['fail', 'continue'],
        description: 'fail (default): the run fails and the timeline stops; continue: go on.',
      },
    },
    ['condition', 'timeout'],
  ),
  syntax: '`{condition, timeout, poll?, onTimeout?: fail|continue}`',
  description: 'Runs until the condition holds (the step ends at that moment).',
  check(w, at) {
    at.checkCondition(w.condition, [...at.path, 'condition']);
    if (w.poll !== undefined && parseDuration(w.poll) <= 0)
      at.report([...at.path, 'poll'], 'expected a duration > 0');
  },
  describe: (w, at) =>
    `# wait until ${at.evaluate?.(w.condition).expected ?? Object.keys(w.condition)[0]} (timeout ${w.timeout})`,
  execute(w, at) {
    const poll = w.poll !== undefined ? parseDuration(w.poll) : 1;
    try {
      at.runUntil(w.condition, w.timeout, poll);
    } catch (e) {
      if (!(e instanceof SimTimeoutError)) throw e;
      const outcome = at.evaluate(w.condition);
      const message = `waitUntil timed out after ${w.timeout} (at ${formatDuration(at.timelineNow())}): expected ${outcome.expected}; actual ${JSON.stringify(outcome.actual)}`;
      at.timedOut();
      if (w.onTimeout === 'continue') return undefined;
      throw new StepFailure(message);
    }
    return undefined;
  },
};
