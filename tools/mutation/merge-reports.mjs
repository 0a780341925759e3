// Merges the per-module Stryker reports (reports/mutation/<module>.json) into reports/mutation/mutation.json, one
// mutation-testing-report-schema document, and prints each module's score: killed + timed out over the mutants
// that were tested (not counting the ones no test covers separately: they count as survivors, as Stryker does).
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.argv[2] ?? 'reports/mutation';
const merged = { schemaVersion: '2', thresholds: { high: 90, low: 85 }, files: {} };
const rows = [];
for (const f of readdirSync(dir).sort()) {
  if (!f.endsWith('.json') || f === 'mutation.json' || f.endsWith('.incremental.json')) continue;
  const report = JSON.parse(readFileSync(join(dir, f), 'utf8'));
  Object.assign(merged.files, report.files);
  for (const [path, file] of Object.entries(report.files)) {
    const count = (s) => file.mutants.filter((m) => m.status === s).length;
    const detected = count('Killed') + count('Timeout');
    const valid = detected + count('Survived') + count('NoCoverage');
    rows.push({ module: f.replace(/\.json$/, ''), path, detected, valid, ignored: count('Ignored') });
  }
}
writeFileSync(join(dir, 'mutation.json'), JSON.stringify(merged));
for (const r of rows)
  console.log(
    `${r.module.padEnd(15)} ${r.path.padEnd(52)} ${((100 * r.detected) / Math.max(1, r.valid)).toFixed(1).padStart(5)}%  (${r.detected}/${r.valid}${r.ignored ? `, ${r.ignored} ignored as equivalent` : ''})`,
  );
