/**
 * One thing, one word: pinrecon calls what reconcile raises a "finding" (issue 17). "exception" survives only in
 * names users' queries, exports and scripts already rely on: the tables and columns below and the JSON key that
 * echoes the `exceptions` count column. docs/DATA.md says why.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '..', '..');
const folders = ['bench', 'cli', 'config', 'core', 'docs', 'doubles', 'pipelines', 'reports', 'scripts', 'sources'];
const scanned = [...folders, 'sql', 'test'];
const topFiles = ['README.md'];
const extensions = ['.ts', '.sql', '.yml', '.md', '.json'];
const thisFile = path.relative(root, import.meta.filename);

/** Names that keep the older word, each matched whole. */
const allowedNames: RegExp[] = [
  /\b(?:prev_|signed_)?recon_exceptions(?:_signed)?\b/g, // the findings table, its signed copy, the runner's inputs
  /\brecon_exception_history\b/g,
  /\bcfg_exception_types\b/g,
  /\bexception_type\b/g, // the findings' type column
  /\bErrnoException\b/g, // Node's type, not ours
];

/**
 * The count column `exceptions` of recon_summary and recon_runs (and the `exceptions` key of `reconcile --json` and
 * `report --json` that carries it): allowed where it reads as a column or a key, never as prose.
 */
const allowedColumn: RegExp[] = [
  /(?<=\.)exceptions\b/g, // t.exceptions, changes.exceptions
  /\bexceptions(?=\??:\s)/g, // a key or a field: `exceptions: number`
  /(?<=,\s*)exceptions(?=\s*(?:,|\)|$))/gm, // in a column list
  /(?<=\bas\s)exceptions\b/gi, // an alias
  /(?<=\bselect\s)exceptions(?=,)/gi,
  /\bexceptions(?=\s+BIGINT)/g, // the DDL
  /(?<=name:\s)exceptions\b/g, // a column's .yml
  /(?<=^\|\s)exceptions(?=\s\|)/gm, // DATA.md's column table
  /`exceptions`/g, // a document naming the column
];

function files(dir: string): string[] {
  return readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const relative = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : files(relative);
    return extensions.some((e) => entry.name.endsWith(e)) ? [relative] : [];
  });
}

/** Each line still naming "exception" once the allowed names are taken out. */
function strayWords(text: string): string[] {
  let rest = text;
  for (const pattern of [...allowedNames, ...allowedColumn]) rest = rest.replace(pattern, '·');
  return rest
    .split('\n')
    .map((line, i) => ({ line, number: i + 1 }))
    .filter(({ line }) => /exception/i.test(line))
    .map(({ line, number }) => `${number}: ${line.trim()}`);
}

describe('"finding" is the one word', () => {
  const scannedFiles = [...scanned.flatMap(files), ...topFiles].filter((f) => f !== thisFile);

  it('no code, console text or document says "exception" outside the names users rely on', () => {
    expect(scannedFiles.length).toBeGreaterThan(200);
    const stray = scannedFiles.flatMap((file) =>
      strayWords(readFileSync(path.join(root, file), 'utf8')).map((hit) => `${file}:${hit}`),
    );
    expect(stray).toEqual([]);
  });

  it('catches the word in prose, identifiers and headers, and lets the table and column names pass', () => {
    expect(strayWords('wrote the workbook: 3 exceptions')).toHaveLength(1);
    expect(strayWords('const exceptionTypes = [];')).toHaveLength(1);
    expect(strayWords("header: 'Exception type'")).toHaveLength(1);
    expect(strayWords('-- one row per exception')).toHaveLength(1);
    expect(strayWords('rejects, exceptions and warnings')).toHaveLength(1);
    const allowed = [
      'SELECT exception_type, count(*) FROM recon_exceptions',
      'FROM prev_recon_exceptions JOIN recon_exception_history USING (finding_id)',
      'INSERT INTO recon_exceptions_signed SELECT * FROM signed_recon_exceptions',
      '  exceptions: number;',
      'value: (t) => t.exceptions',
      'matched, exceptions, built_at',
      '    count(*) as exceptions',
      '  exceptions      BIGINT NOT NULL,',
      '(error as NodeJS.ErrnoException).code',
    ];
    expect(allowed.flatMap(strayWords)).toEqual([]);
  });
});
