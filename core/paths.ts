/** Where pinrecon's own files (sql/, the example config) live, whether run from source or from dist/. */
import { existsSync } from 'node:fs';
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
