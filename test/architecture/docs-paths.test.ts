/**
 * docs/ARCHITECTURE.md names files and folders of the repository: every path it names must exist; neither it nor
 * the README may send the reader outside the repository (issue 17: the repository stands alone).
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '..', '..');
const topFolders = [
  'bench',
  'cli',
  'config',
  'core',
  'docs',
  'doubles',
  'pipelines',
  'reports',
  'scripts',
  'sources',
  'sql',
  'test',
];

/** Code spans that look like repository paths: `core/sql.ts`, `sql/marts/`, `pipelines/actions/plan.ts`. */
function namedPaths(markdown: string): string[] {
  const found = new Set<string>();
  for (const match of markdown.matchAll(/`([^`\s]+)`/g)) {
    const text = match[1]!.replace(/[.,:;]+$/, '');
    if (!/^[A-Za-z0-9_.\-/<>*]+$/.test(text) || !text.includes('/')) continue;
    if (!topFolders.includes(text.split('/')[0]!)) continue;
    // Patterns (`pipelines/<job>.ts`, `sql/tests/*.sql`) name a kind of file, not one file.
    if (/[<>*]/.test(text)) continue;
    found.add(text);
  }
  return [...found].sort();
}

function missing(paths: string[]): string[] {
  return paths.filter((p) => !existsSync(path.join(root, p)));
}

describe('documents name only what exists', () => {
  it('every path docs/ARCHITECTURE.md names exists', () => {
    const paths = namedPaths(readFileSync(path.join(root, 'docs/ARCHITECTURE.md'), 'utf8'));
    expect(paths.length).toBeGreaterThan(20);
    expect(missing(paths)).toEqual([]);
  });

  // The README also names files pinrecon writes (reports/pinrecon-2026-10.xlsx): only its pointers are checked.
  for (const doc of ['docs/ARCHITECTURE.md', 'README.md']) {
    it(`${doc} does not send the reader outside the repository`, () => {
      expect(readFileSync(path.join(root, doc), 'utf8')).not.toMatch(/\.\.\/shared\//);
    });
  }

  it('finds the paths a document names, and skips patterns', () => {
    expect(namedPaths('see `core/sql.ts`, `sql/marts/`, `pipelines/<job>.ts` and `npm test`.')).toEqual([
      'core/sql.ts',
      'sql/marts/',
    ]);
  });
});
