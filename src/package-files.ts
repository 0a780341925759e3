// Files that ship beside the code: package.json, scenarios/, schema/. They are found from the package root, the
// nearest folder above this module that holds a package.json, so the same code finds them when it runs from the
// TypeScript sources (src/), from the build (dist/src/) or from an install under node_modules.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function findRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir)
      throw new Error(`kafkasim: no package.json above ${from}: a broken installation`);
  }
}

/** The package's root folder (where its package.json is). */
export const PACKAGE_ROOT = findRoot(dirname(fileURLToPath(import.meta.url)));

/** The absolute path of a file shipped with the package, e.g. `packageFile('scenarios')`. */
export function packageFile(...relative: string[]): string {
  return join(PACKAGE_ROOT, ...relative);
}

let version: string | undefined;

/** The package's version, from its package.json. */
export function packageVersion(): string {
  version ??= (JSON.parse(readFileSync(packageFile('package.json'), 'utf8')) as { version: string }).version;
  return version;
}
