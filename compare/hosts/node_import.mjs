// Loading an installed npm package from the project's tools folder, shared by the Node
// programs that use the official TypeScript SDK (the client host and the server host).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

// Resolve a subpath of a package installed under `tools`/node_modules through its
// package.json "exports" (the "import" condition), the way Node would if the package sat
// beside the caller; '.' is the package's main entry. `fail` says what is missing and exits.
export async function importFrom(tools, name, subpath, fail) {
  const root = join(tools, 'node_modules', ...name.split('/'));
  let pkg;
  try {
    pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  } catch {
    fail(`${name} is not installed under ${tools}; run: mcp-compare tools install`);
  }
  const exports = pkg.exports || {};
  const exact = exports[subpath === '.' ? '.' : `./${subpath}`];
  let target = exact && exact.import;
  if (!target && subpath !== '.' && exports['./*']) target = exports['./*'].import.replace('*', subpath);
  if (!target && subpath === '.') target = pkg.module || pkg.main;
  return import(pathToFileURL(join(root, target || subpath)).href);
}
