/** The repository's own files, for the architecture tests that read the source: its root and its TypeScript files. */
import { readdirSync } from 'node:fs';
import path from 'node:path';

export const repositoryRoot = path.resolve(import.meta.dirname, '..', '..');

/** Every `.ts` file under `dir` (relative to the root), as a root-relative path with forward slashes. */
export function typescriptFiles(dir: string): string[] {
  return readdirSync(path.join(repositoryRoot, dir), { withFileTypes: true }).flatMap((entry) => {
    const relative = path.posix.join(dir, entry.name);
    if (entry.isDirectory()) return typescriptFiles(relative);
    return entry.name.endsWith('.ts') ? [relative] : [];
  });
}
