/** Where pinrecon's own files (sql/, the example config) live, whether run from source or from dist/. */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

let cached: string | undefined;

export function packageRoot(): string {
  if (cached) return cached;
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(dir, 'package.json')) || !existsSync(path.join(dir, 'sql'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('pinrecon: cannot find the package root (package.json beside sql/)');
    dir = parent;
  }
  cached = dir;
  return dir;
}

export function sqlDir(): string {
  return path.join(packageRoot(), 'sql');
}

const sqlTexts = new Map<string, string>();

/** The text of a query kept in `sql/` (e.g. `sqlText('report', 'cost_bridge.sql')`), trimmed of its final `;`. */
export function sqlText(...parts: string[]): string {
  const file = path.join(sqlDir(), ...parts);
  let text = sqlTexts.get(file);
  if (text === undefined) {
    text = readFileSync(file, 'utf8').trim().replace(/;\s*$/, '');
    sqlTexts.set(file, text);
  }
  return text;
}

let version: string | undefined;

/** pinrecon's version, from its package.json (stored in `pinrecon_settings`, issue 31). */
export function packageVersion(): string {
  version ??= (JSON.parse(readFileSync(path.join(packageRoot(), 'package.json'), 'utf8')) as { version: string })
    .version;
  return version;
}
