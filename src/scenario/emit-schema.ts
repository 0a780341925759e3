// Writes schema/scenario.schema.json from schema.ts, formatted as the repository's biome formats JSON, and the
// language reference docs/scenario-language.md from the registries: `npx tsx src/scenario/emit-schema.ts`.
// (test/scenario/schema.test.ts fails when either file is out of date.)
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { packageFile } from '../package-files.ts';
import { scenarioLanguageDoc } from './language-docs.ts';
import { scenarioSchema } from './schema.ts';

export const SCHEMA_FILE = packageFile('schema', 'scenario.schema.json');
export const LANGUAGE_DOC_FILE = packageFile('docs', 'scenario-language.md');

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(SCHEMA_FILE, `${JSON.stringify(scenarioSchema, null, 2)}\n`);
  spawnSync('npx', ['biome', 'format', '--write', SCHEMA_FILE], { stdio: 'inherit' });
  writeFileSync(LANGUAGE_DOC_FILE, scenarioLanguageDoc());
  console.log(`wrote ${SCHEMA_FILE} and ${LANGUAGE_DOC_FILE}`);
}
