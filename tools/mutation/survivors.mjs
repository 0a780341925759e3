// Lists the surviving and uncovered mutants of a module's report, one per line, each with its line as mutated
// (a mutant spanning several lines shows its replacement): node tools/mutation/survivors.mjs <module>
import { readFileSync } from 'node:fs';

const name = process.argv[2];
const report = JSON.parse(readFileSync(`reports/mutation/${name}.json`, 'utf8'));
for (const [path, file] of Object.entries(report.files)) {
  const lines = file.source.split('\n');
  for (const m of file.mutants) {
    if (m.status !== 'Survived' && m.status !== 'NoCoverage') continue;
    const { start, end } = m.location;
    const line = lines[start.line - 1];
    const mutated =
      start.line === end.line
        ? line.slice(0, start.column - 1) + (m.replacement ?? '') + line.slice(end.column - 1)
        : `${line.slice(0, start.column - 1)}${m.replacement ?? ''} ...`;
    console.log(
      `${path}:${start.line}:${start.column} ${m.status} ${m.mutatorName}: ${mutated.trim().slice(0, 150)}`,
    );
  }
}
