// The scenario schema's validator as JavaScript source (ajv's standalone code). Compiling the schema with ajv
// takes about a second of every `kafkasim run` and of every sweep worker's start, so the build compiles it once:
// scripts/build.mjs writes scenario-validator.cjs beside the built schema-errors.js, which uses it to accept valid
// documents; errors are still explained by ajv's own compiled validator (built only when a document is invalid).
// From the sources nothing is precompiled.
import { Ajv, type ValidateFunction } from 'ajv';
import * as standalone from 'ajv/dist/standalone/index.js';
import { SCENARIO_SCHEMA_ID, scenarioSchema } from './schema.ts';

/** CommonJS source of a function that tells whether a document is a valid scenario (same schema, same options). */
export function scenarioValidatorSource(): string {
  const ajv = new Ajv({ strict: true, allowUnionTypes: true, code: { source: true } });
  const validate = ajv.compile({ ...scenarioSchema, $id: SCENARIO_SCHEMA_ID });
  // ajv/dist/standalone is CommonJS: imported from ESM, its module.exports (the function) is `default`.
  const generate = (standalone as unknown as { default: (ajv: Ajv, validate: ValidateFunction) => string })
    .default;
  return generate(ajv, validate);
}

export const VALIDATOR_FILE = 'scenario-validator.cjs';
