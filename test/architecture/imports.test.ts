/**
 * The one-way flow of docs/ARCHITECTURE.md, enforced: every import of every source file is checked
 * against what its folder may import. A new import that runs against the flow fails here with its
 * file, line and the rule it breaks.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repositoryRoot as root, typescriptFiles } from '../support/repository-files.js';

/** Folder → the folders its files may import (besides their own folder, packages and node:). Longest prefix wins. */
const allowed: Record<string, string[]> = {
  'core/': [],
  'config/': ['core/'],
  'sources/partner-api/': ['core/', 'config/'],
  'sources/ledger/': ['core/', 'config/'],
  'doubles/mail-sink/': ['core/', 'config/'],
  'doubles/simulator/': ['sources/partner-api/', 'core/', 'config/'],
  'reports/': ['core/', 'config/'],
  'pipelines/': ['sources/', 'reports/', 'core/', 'config/'],
  'cli/': ['pipelines/', 'core/', 'config/'],
  'scripts/': ['core/'],
};

/**
 * The few imports the flow tolerates, each with its reason. `simulate-api` serves the simulator itself (it
 * runs no job); the demo job starts the test doubles as its local upstream and mail server; `ledger` lists the
 * formats a reader understands in its --help.
 */
const toleratedImports: { from: string; to: string; why: string }[] = [
  { from: 'cli/commands/simulate-api.ts', to: 'doubles/simulator/', why: 'the command is the simulator, not a job' },
  { from: 'pipelines/ops/demo.ts', to: 'doubles/', why: 'the demo runs against the local simulator and mail sink' },
  { from: 'cli/commands/ledger.ts', to: 'sources/ledger/types.ts', why: 'the list of ledger formats for --help' },
];

const sourceFolders = ['core', 'config', 'sources', 'doubles', 'pipelines', 'reports', 'cli', 'scripts'];

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
  if (!folder)
    throw new Error(`${file} lies in no folder of the architecture: add it to docs/ARCHITECTURE.md and this test`);
  return folder;
}

function violation({ file, line, target }: ImportLine): string | undefined {
  const folder = folderOf(file);
  if (target.startsWith(folder)) return undefined;
  if (allowed[folder]!.some((prefix) => target.startsWith(prefix))) return undefined;
  if (toleratedImports.some((e) => e.from === file && target.startsWith(e.to))) return undefined;
  return `${file}:${line} imports ${target}, but ${folder} may import only ${[folder, ...allowed[folder]!].join(', ')}`;
}

/**
 * `pipelines/` is a house of rooms by stage (issue 27), listed in the order data flows through them: a room may
 * import only the rooms before it. Every job lives in a room; nothing lies at the top of `pipelines/`.
 */
const pipelineRooms = [
  'extract',
  'ledger',
  'catalog',
  'keys',
  'people',
  'close',
  'reconcile',
  'decisions',
  'actions',
  'report',
  'analysts',
  'review',
  'ops',
] as const;

function pipelineUnit(file: string): string {
  return file.split('/').slice(0, 2).join('/');
}

/** An import from a room into a room after it (against the flow), or into no room at all. */
function roomViolation({ file, line, target }: ImportLine): string | undefined {
  if (!file.startsWith('pipelines/') || !target.startsWith('pipelines/')) return undefined;
  const from = pipelineRooms.indexOf(pipelineUnit(file).slice('pipelines/'.length) as (typeof pipelineRooms)[number]);
  const to = pipelineRooms.indexOf(pipelineUnit(target).slice('pipelines/'.length) as (typeof pipelineRooms)[number]);
  if (from < 0 || to < 0) return `${file}:${line} imports ${target}: both must lie in a room of pipelines/`;
  if (to > from) return `${file}:${line} imports ${target}, a room after its own (${pipelineRooms.join(' → ')})`;
  return undefined;
}

/** Arrows between the rooms of `pipelines/`, from file imports. */
function pipelineFolderArrows(imports: ImportLine[]): Map<string, Set<string>> {
  const arrows = new Map<string, Set<string>>();
  for (const { file, target } of imports) {
    if (!file.startsWith('pipelines/') || !target.startsWith('pipelines/')) continue;
    const from = pipelineUnit(file);
    const to = pipelineUnit(target);
    if (from === to) continue;
    if (!arrows.has(from)) arrows.set(from, new Set());
    arrows.get(from)!.add(to);
  }
  return arrows;
}

/** Every cycle of rooms (a two-way arrow is the shortest), each named once as `a → b → a`. */
function folderCycles(arrows: Map<string, Set<string>>): string[] {
  const cycles = new Set<string>();
  const walk = (start: string, at: string, trail: string[]): void => {
    for (const next of arrows.get(at) ?? []) {
      if (next === start) {
        // Name each cycle from its smallest folder so the same loop found from two starts counts once.
        const turn = trail.indexOf([...trail].sort()[0]!);
        const loop = [...trail.slice(turn), ...trail.slice(0, turn)];
        cycles.add([...loop, loop[0]].join(' → '));
      } else if (!trail.includes(next)) {
        walk(start, next, [...trail, next]);
      }
    }
  };
  for (const start of arrows.keys()) walk(start, start, [start]);
  return [...cycles];
}

describe('the one-way flow config/core → sources → pipelines → reports → cli', () => {
  const files = sourceFolders.flatMap(typescriptFiles);

  it('finds the source files it checks', () => {
    expect(files.length).toBeGreaterThan(50);
    expect(files).toContain('core/warehouse.ts');
  });

  it('has no import against the flow', () => {
    const against = files
      .flatMap(relativeImports)
      .map(violation)
      .filter((v): v is string => v !== undefined);
    expect(against).toEqual([]);
  });

  it('would catch one: a pipeline importing the CLI, a report importing a pipeline', () => {
    expect(violation({ file: 'pipelines/report/report.ts', line: 1, target: 'cli/output.ts' })).toMatch(
      /pipelines\/ may import only/,
    );
    expect(violation({ file: 'reports/workbook.ts', line: 1, target: 'pipelines/reconcile/reconcile.ts' })).toMatch(
      /reports\/ may import only/,
    );
    expect(violation({ file: 'sources/ledger/csv.ts', line: 1, target: 'sources/partner-api/client.ts' })).toMatch(
      /sources\/ledger\/ may import only/,
    );
    expect(violation({ file: 'core/warehouse.ts', line: 1, target: 'config/schema.ts' })).toBeDefined();
    const pipelineToDouble = {
      file: 'pipelines/reconcile/reconcile.ts',
      line: 1,
      target: 'doubles/simulator/server.ts',
    };
    expect(violation(pipelineToDouble)).toMatch(/pipelines\/ may import only/);
    expect(violation({ file: 'doubles/mail-sink/mail-sink.ts', line: 1, target: 'reports/email.ts' })).toMatch(
      /may import only/,
    );
  });

  it('has no two-way arrow (no cycle) between the rooms inside pipelines/', () => {
    expect(folderCycles(pipelineFolderArrows(files.flatMap(relativeImports)))).toEqual([]);
  });

  it('keeps every job in a room of pipelines/ and every import between rooms with the flow', () => {
    const loose = files.filter((file) => file.startsWith('pipelines/') && file.split('/').length !== 3);
    expect(loose).toEqual([]);
    const rooms = new Set(files.filter((f) => f.startsWith('pipelines/')).map((f) => f.split('/')[1]));
    expect([...rooms].sort()).toEqual([...pipelineRooms].sort());
    const against = files
      .flatMap(relativeImports)
      .map(roomViolation)
      .filter((v): v is string => v !== undefined);
    expect(against).toEqual([]);
    expect(
      roomViolation({ file: 'pipelines/extract/load.ts', line: 1, target: 'pipelines/reconcile/reconcile.ts' }),
    ).toMatch(/a room after its own/);
  });

  it('would catch a cycle inside pipelines/: two rooms importing each other', () => {
    const arrows = pipelineFolderArrows([
      { file: 'pipelines/extract/rebuild.ts', line: 1, target: 'pipelines/keys/protect.ts' },
      { file: 'pipelines/keys/protect.ts', line: 1, target: 'pipelines/extract/landing.ts' },
    ]);
    expect(folderCycles(arrows)).toEqual(['pipelines/extract → pipelines/keys → pipelines/extract']);
    expect(
      folderCycles(
        pipelineFolderArrows([
          { file: 'pipelines/actions/plan.ts', line: 1, target: 'pipelines/extract/load.ts' },
          { file: 'pipelines/extract/load.ts', line: 1, target: 'pipelines/catalog/catalog.ts' },
          { file: 'pipelines/catalog/catalog.ts', line: 1, target: 'pipelines/actions/store.ts' },
        ]),
      ),
    ).toEqual(['pipelines/actions → pipelines/extract → pipelines/catalog → pipelines/actions']);
    // A room imported by another and importing nothing of it is no cycle.
    expect(
      folderCycles(
        pipelineFolderArrows([
          { file: 'pipelines/extract/extract.ts', line: 1, target: 'pipelines/extract/landing.ts' },
          { file: 'pipelines/ops/month-end.ts', line: 1, target: 'pipelines/extract/extract.ts' },
        ]),
      ),
    ).toEqual([]);
  });

  it('keeps every tolerated import in use', () => {
    const imports = files.flatMap(relativeImports);
    for (const tolerated of toleratedImports) {
      expect(
        imports.some((i) => i.file === tolerated.from && i.target.startsWith(tolerated.to)),
        `${tolerated.from} → ${tolerated.to}`,
      ).toBe(true);
    }
  });
});
