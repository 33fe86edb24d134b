/**
 * No import cycle between modules, anywhere (issue 27): every relative import of every source file — a type-only
 * one too, since it ties the two files as much for a reader — is an arrow, and no file reaches itself. The folder
 * and room rules (imports.test.ts) keep the flow between folders; this keeps it inside them.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repositoryRoot as root, typescriptFiles } from '../support/repository-files.js';

const sourceFolders = ['core', 'config', 'sources', 'doubles', 'pipelines', 'reports', 'cli', 'scripts', 'bench'];

/** A file's relative imports (static, dynamic, re-export), as repository paths. */
function importsOf(file: string, text: string): string[] {
  const pattern = /(?:\bfrom\s+|\bimport\s*\(\s*|\bimport\s+)(['"])(\.{1,2}\/[^'"]+)\1/g;
  return [...text.matchAll(pattern)].map((m) =>
    path.posix.normalize(path.posix.join(path.posix.dirname(file), m[2]!)).replace(/\.js$/, '.ts'),
  );
}

/** The strongly connected groups of more than one module (or one importing itself): each is a cycle. */
function importCycles(arrows: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  let next = 0;
  const visit = (file: string): void => {
    index.set(file, next);
    low.set(file, next);
    next += 1;
    stack.push(file);
    onStack.add(file);
    for (const target of arrows.get(file) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file)!, index.get(target)!));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const group: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      group.push(member);
    } while (member !== file);
    if (group.length > 1 || (arrows.get(file) ?? []).includes(file)) cycles.push(group.sort());
  };
  for (const file of arrows.keys()) if (!index.has(file)) visit(file);
  return cycles;
}

describe('the modules', () => {
  it('import each other without a cycle', () => {
    const files = sourceFolders.flatMap(typescriptFiles);
    expect(files).toContain('core/warehouse.ts');
    const arrows = new Map(files.map((file) => [file, importsOf(file, readFileSync(path.join(root, file), 'utf8'))]));
    expect(importCycles(arrows).map((group) => group.join(' ↔ '))).toEqual([]);
  });

  it('would find one: two modules importing each other, a longer loop, one importing itself', () => {
    const arrows = new Map([
      ['core/a.ts', ['core/b.ts']],
      ['core/b.ts', ['core/a.ts', 'core/c.ts']],
      ['core/c.ts', []],
      ['reports/x.ts', ['reports/y.ts']],
      ['reports/y.ts', ['reports/z.ts']],
      ['reports/z.ts', ['reports/x.ts']],
      ['cli/self.ts', ['cli/self.ts']],
    ]);
    expect(importCycles(arrows).sort()).toEqual([
      ['cli/self.ts'],
      ['core/a.ts', 'core/b.ts'],
      ['reports/x.ts', 'reports/y.ts', 'reports/z.ts'],
    ]);
  });

  it('reads type-only imports and re-exports as arrows', () => {
    expect(
      importsOf('core/a.ts', "import type { W } from './warehouse.js';\nexport { x } from '../config/b.js';"),
    ).toEqual(['core/warehouse.ts', 'config/b.ts']);
  });
});
