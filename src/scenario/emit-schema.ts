// Writes schema/scenario.schema.json from schema.ts, formatted as the repository's biome formats JSON:
// `npx tsx src/scenario/emit-schema.ts`. (test/scenario/schema.test.ts fails when the file is out of date.)
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { packageFile } from '../package-files.ts';
import { scenarioSchema } from './schema.ts';

export const SCHEMA_FILE = packageFile('schema', 'scenario.schema.json');

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(SCHEMA_FILE, `${JSON.stringify(scenarioSchema, null, 2)}\n`);
  spawnSync('npx', ['biome', 'format', '--write', SCHEMA_FILE], { stdio: 'inherit' });
  console.log(`wrote ${SCHEMA_FILE}`);
}
