// The JSON Schema that ships in schema/ is the one the loader uses, compiles under ajv's strict mode, documents
// every section, step and condition, and follows the models' own config keys.
import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { brokerDefaults } from '../../models/broker/index.ts';
import { consumerConfig, producerConfig } from '../../models/clients/index.ts';
import { DEFAULT_CONTROLLER_CONFIG } from '../../models/controller/index.ts';
import { LANGUAGE_DOC_FILE, SCHEMA_FILE } from '../../src/scenario/emit-schema.ts';
import { CONDITION_KINDS, METRIC_KINDS, STEP_ACTIONS, scenarioSchema } from '../../src/scenario/index.ts';
import { scenarioLanguageDoc } from '../../src/scenario/language-docs.ts';

// biome-ignore lint/suspicious/noExplicitAny: walking a JSON Schema document of arbitrary shape
type Schema = Record<string, any>;
const defs = (scenarioSchema as Schema).definitions as Record<string, Schema>;

describe('scenario JSON Schema', () => {
  it('schema/scenario.schema.json is up to date (regenerate: npx tsx src/scenario/emit-schema.ts)', () => {
    expect(JSON.parse(readFileSync(SCHEMA_FILE, 'utf8'))).toEqual(scenarioSchema);
  });

  it('docs/scenario-language.md is up to date, and names every step, condition and metric', () => {
    const doc = readFileSync(LANGUAGE_DOC_FILE, 'utf8');
    expect(doc).toBe(scenarioLanguageDoc());
    for (const name of [...STEP_ACTIONS, ...CONDITION_KINDS, ...METRIC_KINDS])
      expect(doc, name).toContain(`| \`${name}\` |`);
  });

  it('compiles in ajv strict mode and rejects unknown top-level keys', () => {
    const ajv = new Ajv({ strict: true, allErrors: true, allowUnionTypes: true });
    const validate = ajv.compile(scenarioSchema);
    expect(validate({ name: 'x', timeline: [{ run: '1s' }] })).toBe(true);
    expect(validate({ name: 'x', timeline: [], extra: 1 })).toBe(false);
    expect(validate.errors?.[0]?.keyword).toBe('additionalProperties');
  });

  it('documents every step action, condition and metric', () => {
    for (const a of STEP_ACTIONS) {
      const s = defs.step!.properties[a] as Schema;
      const target = s.$ref ? defs[String(s.$ref).split('/').pop()!]! : s;
      expect(s.description ?? target.description, `step action ${a}`).toBeTruthy();
    }
    for (const k of CONDITION_KINDS)
      expect(defs.condition!.properties[k].description, `condition ${k}`).toBeTruthy();
    expect(Object.keys(defs.metric!.properties).sort()).toEqual([...METRIC_KINDS].sort());
    for (const [k, v] of Object.entries((scenarioSchema as Schema).properties as Record<string, Schema>)) {
      expect(v.description, `section ${k}`).toBeTruthy();
    }
  });

  it('expectations accept the same conditions as waitUntil, plus a name and a sql check (expectations only)', () => {
    expect(Object.keys(defs.expectation!.properties).sort()).toEqual(
      ['name', 'description', 'sql', ...CONDITION_KINDS].sort(),
    );
    expect(Object.keys(defs.condition!.properties)).not.toContain('sql');
  });

  it("client and cluster settings are the models' own keys (typos are errors)", () => {
    const producerKeys = Object.keys(defs.producerConfig!.properties).sort();
    expect(producerKeys).toEqual(
      [...Object.keys(producerConfig('java')), 'topic.metadata.refresh.interval.ms'].sort(),
    );
    expect(defs.producerConfig!.additionalProperties).toBe(false);
    expect(Object.keys(defs.consumerConfig!.properties).sort()).toEqual(
      [...Object.keys(consumerConfig('java')), 'topic.metadata.refresh.interval.ms'].sort(),
    );
    const clusterConfigs = (scenarioSchema as Schema).properties.cluster.properties.configs.properties;
    for (const k of [...Object.keys(brokerDefaults), ...Object.keys(DEFAULT_CONTROLLER_CONFIG)]) {
      expect(clusterConfigs[k], k).toBeDefined();
    }
  });
});
