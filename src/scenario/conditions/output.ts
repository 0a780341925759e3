// output: the tool output lines the run printed so far that match a regular expression (a count, or the number a
// line shows). Reads only what the tools printed, so it holds for any world a scenario builds, the Raft test
// server's included.
import { object, ref, withDescription } from '../schema-kit.ts';
import type { Comparison } from '../types.ts';
import {
  type ConditionDefinition,
  compare,
  describeComparison,
  type MetricDefinition,
  type ScenarioEval,
} from './condition.ts';

export interface OutputCondition {
  matches: string;
  count?: Comparison;
}

export interface OutputMetric {
  matches: string;
}

const MATCHES = {
  type: 'string',
  minLength: 1,
  maxLength: 500,
  description: 'A regular expression (JavaScript syntax) a line must match somewhere.',
} as const;

function regexOf(matches: string): RegExp {
  return new RegExp(matches);
}

function checkRegex(matches: string, report: (message: string) => void): void {
  try {
    regexOf(matches);
  } catch (e) {
    report(`'${matches}' is not a regular expression: ${(e as Error).message}`);
  }
}

const linesOf = (ctx: ScenarioEval): readonly string[] => ctx.output ?? [];

export const output: ConditionDefinition<OutputCondition, 'scenario'> = {
  scope: 'scenario',
  schema: object(
    {
      matches: MATCHES,
      count: withDescription(ref('comparison'), 'How many lines match (default: at least one).'),
    },
    ['matches'],
  ),
  syntax: '`{matches, count?}`',
  description:
    'Lines of tool output printed so far that match the regular expression `matches`: at least one, or `count` of them (e.g. `{matches: \'"name":"producer_send_success"\', count: 2000}`).',
  check: (v, refs, path) => checkRegex(v.matches, (m) => refs.report([...path, 'matches'], m)),
  evaluate(v, ctx) {
    const re = regexOf(v.matches);
    let n = 0;
    for (const line of linesOf(ctx)) if (re.test(line)) n++;
    const cmp = v.count ?? { gte: 1 };
    return {
      passed: compare(n, cmp),
      expected: describeComparison(`lines matching /${v.matches}/`, cmp),
      actual: n,
    };
  },
};

export const outputMetric: MetricDefinition<OutputMetric> = {
  schema: object({ matches: MATCHES }, ['matches']),
  syntax: '`{matches}`',
  description:
    'The number the last output line matching `matches` shows in its first capture group (e.g. `{matches: "([\\\\d.]+) records/sec"}`), or how many lines match when the expression has no group; null when no line matches or the group is not a number.',
  check: (v, refs, path) => checkRegex(v.matches, (m) => refs.report([...path, 'matches'], m)),
  measure(v, ctx) {
    const re = regexOf(v.matches);
    const lines = linesOf(ctx);
    if (new RegExp(`${v.matches}|`).exec('')!.length === 1) return lines.filter((l) => re.test(l)).length;
    for (let i = lines.length - 1; i >= 0; i--) {
      const m = re.exec(lines[i]!);
      if (!m) continue;
      const value = Number(m[1]);
      return m[1] !== undefined && Number.isFinite(value) ? value : null;
    }
    return null;
  },
};
