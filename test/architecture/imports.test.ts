/**
 * The one-way flow of docs/ARCHITECTURE.md, enforced: every import of every source file is checked
 * against what its folder may import. A new import that runs against the flow fails here with its
 * file, line and the rule it breaks.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');

/** Folder → the folders its files may import (besides their own folder, packages and node:). Longest prefix wins. */
const allowed: Record<string, string[]> = {
  'core/': [],
  'config/': ['core/'],
  'sources/partner-api/': ['core/', 'config/'],
  'sources/ledger/': ['core/', 'config/'],
  'sources/mail-sink/': ['core/', 'config/'],
  'sources/simulator/': ['sources/partner-api/', 'core/', 'config/'],
  'reports/': ['core/', 'config/'],
  'pipelines/': ['sources/', 'reports/', 'core/', 'config/'],
  'cli/': ['pipelines/', 'core/', 'config/'],
  'scripts/': ['core/'],
};

/**
 * The few imports the flow tolerates, each with its reason. `simulate-api` serves the simulator itself (it
 * runs no job); `ledger` lists the formats a reader understands in its --help.
 */
const exceptions: { from: string; to: string; why: string }[] = [
  { from: 'cli/commands/simulate-api.ts', to: 'sources/simulator/', why: 'the command is the simulator, not a job' },
  { from: 'cli/commands/ledger.ts', to: 'sources/ledger/types.ts', why: 'the list of ledger formats for --help' },
];

const sourceFolders = ['core', 'config', 'sources', 'pipelines', 'reports', 'cli', 'scripts'];

function typescriptFiles(dir: string): string[] {
  return readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const relative = path.posix.join(dir, entry.name);
    if (entry.isDirectory()) return typescriptFiles(relative);
    return entry.name.endsWith('.ts') ? [relative] : [];
  });
}

interface ImportLine {
  file: string;
  line: number;
  target: string;
}

/** Every relative import (static, dynamic, re-export) of a file, resolved to a repository path. */
function relativeImports(file: string): ImportLine[] {
  const text = readFileSync(path.join(root, file), 'utf8');
  const found: ImportLine[] = [];
  const pattern = /(?:\bfrom\s+|\bimport\s*\(\s*|\bimport\s+)(['"])(\.{1,2}\/[^'"]+)\1/g;
  for (const match of text.matchAll(pattern)) {
    const line = text.slice(0, match.index).split('\n').length;
    const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), match[2]!)).replace(/\.js$/, '.ts');
    found.push({ file, line, target });
  }
  return found;
}

function folderOf(file: string): string {
  const prefixes = Object.keys(allowed).filter((prefix) => file.startsWith(prefix));
  const folder = prefixes.sort((a, b) => b.length - a.length)[0];
  if (!folder) throw new Error(`${file} lies in no folder of the architecture: add it to docs/ARCHITECTURE.md and this test`);
  return folder;
}

function violation({ file, line, target }: ImportLine): string | undefined {
  const folder = folderOf(file);
  if (target.startsWith(folder)) return undefined;
  if (allowed[folder]!.some((prefix) => target.startsWith(prefix))) return undefined;
  if (exceptions.some((e) => e.from === file && target.startsWith(e.to))) return undefined;
  return `${file}:${line} imports ${target}, but ${folder} may import only ${[folder, ...allowed[folder]!].join(', ')}`;
}

describe('the one-way flow config/core → sources → pipelines → reports → cli', () => {
  const files = sourceFolders.flatMap(typescriptFiles);

  it('finds the source files it checks', () => {
    expect(files.length).toBeGreaterThan(50);
    expect(files).toContain('core/warehouse.ts');
  });

  it('has no import against the flow', () => {
    const against = files.flatMap(relativeImports).map(violation).filter((v): v is string => v !== undefined);
    expect(against).toEqual([]);
  });

  it('would catch one: a pipeline importing the CLI, a report importing a pipeline', () => {
    expect(violation({ file: 'pipelines/report.ts', line: 1, target: 'cli/output.ts' })).toMatch(/pipelines\/ may import only/);
    expect(violation({ file: 'reports/workbook.ts', line: 1, target: 'pipelines/reconcile.ts' })).toMatch(/reports\/ may import only/);
    expect(violation({ file: 'sources/ledger/csv.ts', line: 1, target: 'sources/partner-api/client.ts' })).toMatch(/sources\/ledger\/ may import only/);
    expect(violation({ file: 'core/warehouse.ts', line: 1, target: 'config/schema.ts' })).toBeDefined();
  });

  it('keeps every tolerated exception in use', () => {
    const imports = files.flatMap(relativeImports);
    for (const exception of exceptions) {
      expect(imports.some((i) => i.file === exception.from && i.target.startsWith(exception.to)), `${exception.from} → ${exception.to}`).toBe(true);
    }
  });
});
