// lakeRows: the rows a Lake table holds, counted in the model without SQL (so a waitUntil can ask).
import { parseLakeTable } from '../../../models/lake/index.ts';
import { object, ref } from '../schema-kit.ts';
import type { Comparison } from '../types.ts';
import { type ConditionDefinition, compare, describeComparison } from './condition.ts';

export const lakeRows: ConditionDefinition<{ table: string; count: Comparison }, 'cluster'> = {
  scope: 'cluster',
  schema: object(
    {
      table: { type: 'string', minLength: 1, description: 'The table, `database.table` or `table`.' },
      count: ref('comparison'),
    },
    ['table', 'count'],
  ),
  syntax: '`{table, count}`',
  description:
    'Rows a Lake table holds now (`database.table`, default database `default`), counted in the model, without SQL (usable in waitUntil).',
  evaluate(v, ctx) {
    const { database, table } = parseLakeTable(v.table, 'default');
    const n = ctx.cluster.lake.rowCount(database, table);
    return {
      passed: compare(n, v.count),
      expected: describeComparison(`rows in ${database}.${table}`, v.count),
      actual: n,
    };
  },
};
