// Lists the surviving and uncovered mutants of a module's report: node tools/mutation/survivors.mjs <module>
import { readFileSync } from 'node:fs';

const name = process.argv[2];
const report = JSON.parse(readFileSync(`reports/mutation/${name}.json`, 'utf8'));
for (const [path, file] of Object.entries(report.files)) {
  const lines = file.source.split('\n');
  for (const m of file.mutants) {
    if (m.status !== 'Survived' && m.status !== 'NoCoverage') continue;
    const l = m.location.start.line;
    const original = lines[l - 1].trim().slice(0, 90);
    console.log(
      `${path}:${l}:${m.location.start.column} ${m.status} ${m.mutatorName}: ${JSON.stringify(m.replacement ?? '').slice(0, 60)}  | ${original}`,
    );
  }
}
