// The language reference, docs/scenario-language.md, written from the same registries and schema the loader
// validates with (steps/, conditions/, schema.ts): what a scenario can say is documented where it is defined.
// `npx tsx src/scenario/emit-schema.ts` rewrites it; test/scenario/schema.test.ts fails when it is out of date.
import {
  CONDITION_KINDS,
  CONDITIONS,
  conditionDefinition,
  METRIC_KINDS,
  METRICS,
} from './conditions/index.ts';
import { scenarioSchema } from './schema.ts';
import { STEP_ACTIONS, stepDefinition } from './steps/index.ts';

type Node = { description?: string; properties?: Record<string, Node>; [k: string]: unknown };

const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
const row = (...cells: string[]): string => `| ${cells.map(cell).join(' | ')} |`;

function propertiesTable(node: Node, prefix = ''): string[] {
  return Object.entries(node.properties ?? {}).map(([k, v]) => row(`\`${prefix}${k}\``, v.description ?? ''));
}

export function scenarioLanguageDoc(): string {
  const schema = scenarioSchema as Node;
  const defs = schema.definitions as Record<string, Node>;
  const top = schema.properties!;
  const stepProps = defs.step!.properties!;
  const timing = ['at', 'after', 'label', 'note', 'quiet'];
  const server = new Set(['cluster', 'server']);
  const out = [
    '# The scenario language',
    '',
    '<!-- Generated from src/scenario (the step and condition registries and the JSON Schema) by',
    '     `npx tsx src/scenario/emit-schema.ts`: edit the definitions there, not this file. -->',
    '',
    'A scenario is a YAML file: a cluster, topics, clients, a timeline of steps and expectations. Files start with',
    '`# yaml-language-server: $schema=../schema/scenario.schema.json`, so editors complete and check them against the',
    'shipped JSON Schema. Unknown keys are errors; `kafkasim validate` names `file:line:column`, the path inside the',
    'document and what was expected. Each step is defined in one file of `src/scenario/steps/`, each condition and',
    'metric in one file of `src/scenario/conditions/`.',
    '',
    '## Contents',
    '',
    '- [The document](#the-document)',
    '- [Step timing](#step-timing)',
    '- [Steps](#steps)',
    '- [Conditions](#conditions)',
    '- [Comparisons](#comparisons)',
    '- [Expectations](#expectations)',
    '- [Metrics](#metrics)',
    '',
    '## The document',
    '',
    '| key | what it is |',
    '|---|---|',
    ...Object.entries(top).map(([k, v]) => row(`\`${k}\``, v.description ?? '')),
    '',
    '`cluster`:',
    '',
    '| key | what it is |',
    '|---|---|',
    ...propertiesTable(top.cluster!),
    '',
    '`clients` (each takes `flavour`, `config` with the real client keys, and `autoStart`):',
    '',
    '| key | what it is |',
    '|---|---|',
    ...propertiesTable(top.clients!),
    '',
    '`faults`:',
    '',
    '| key | what it is |',
    '|---|---|',
    ...propertiesTable(top.faults!),
    '',
    '## Step timing',
    '',
    'Each step of `timeline` has optional timing and exactly one action.',
    '',
    '| key | what it is |',
    '|---|---|',
    ...timing.map((k) => row(`\`${k}\``, stepProps[k]?.description ?? '')),
    '',
    '## Steps',
    '',
    '| action | written | what it does |',
    '|---|---|---|',
    ...STEP_ACTIONS.map((a) => {
      const d = stepDefinition(a);
      return row(`\`${a}\``, d.syntax, d.description);
    }),
    '',
    '## Conditions',
    '',
    'A condition is used by `waitUntil` steps and by expectations. Those marked *HTTP* can also be given to',
    "`kafkasim serve`'s `POST /sim/advance` as `until` (every key given must hold); `workloadDone` exists only",
    'there.',
    '',
    '| condition | written | where | what it checks |',
    '|---|---|---|---|',
    ...(Object.keys(CONDITIONS) as (keyof typeof CONDITIONS)[]).map((k) => {
      const d = conditionDefinition(k);
      const where = [
        CONDITION_KINDS.includes(k) ? 'scenario' : '',
        server.has(d.scope) && !d.children ? 'HTTP' : '',
      ]
        .filter(Boolean)
        .join(', ');
      return row(`\`${k}\``, d.syntax, where, d.description);
    }),
    '',
    '## Comparisons',
    '',
    String(defs.comparison!.description),
    'Fields compared this way are written `{gt: 0}`, `{gte: 1, lte: 5}`, or a plain number (`eq`, `ne`, `gt`, `gte`,',
    '`lt`, `lte`).',
    '',
    '## Expectations',
    '',
    String(defs.expectation!.description),
    '',
    '| key | what it is |',
    '|---|---|',
    row('`name`', defs.expectation!.properties!.name!.description ?? ''),
    row('`sql`', defs.expectation!.properties!.sql!.description ?? ''),
    '',
    '## Metrics',
    '',
    String(top.metrics!.description),
    '',
    '| metric | written | what it measures |',
    '|---|---|---|',
    ...METRIC_KINDS.map((k) => row(`\`${k}\``, METRICS[k].syntax, METRICS[k].description)),
    '',
  ];
  return out.join('\n');
}
