/**
 * Documents that stay true (issue 27): a comment or a document cites only files the repository holds (a reader
 * cannot open a brief that is not in it: cite the README, docs/ or the issue instead); the provider is called
 * "provider" (the folder sources/partner-api keeps its name); and no line of code is over 120 characters, the
 * width the formatter keeps (a budget of long lines per file went to zero in issue 27; none may come back).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '..', '..');
const productFolders = [
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
];
const thisFile = path
  .relative(root, import.meta.filename)
  .split(path.sep)
  .join('/');

function files(dir: string, extensions: string[]): string[] {
  return readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const relative = path.posix.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : files(relative, extensions);
    return extensions.some((e) => entry.name.endsWith(e)) ? [relative] : [];
  });
}

const read = (file: string) => readFileSync(path.join(root, file), 'utf8');

/** Every `<name>.md` a text names, as written (`docs/DATA.md`, `DATA.md`, `interface.md`). */
function citedDocuments(text: string): string[] {
  return [...text.matchAll(/(?<![\w/.-])([\w./-]*[\w-]\.md)\b/g)].map((m) => m[1]!);
}

/** The repository's own Markdown files, by path and by name. */
const markdown = [...files('.', ['.md'])].filter((f) => !f.startsWith('node_modules/') && !f.startsWith('dist/'));
const known = new Set([...markdown, ...markdown.map((f) => path.posix.basename(f))]);

/** Lines calling the provider by another word: "upstream", or "partner-api" where it is not the folder's path. */
function otherWords(text: string): string[] {
  return text
    .split('\n')
    .map((line, i) => ({ line, number: i + 1 }))
    .filter(({ line }) => /upstream/i.test(line) || strayFolderName(line))
    .map(({ line, number }) => `${number}: ${line.trim()}`);
}
function strayFolderName(line: string): boolean {
  return /partner[- ]api/i.test(line.replace(/sources\/partner-api\b/g, '').replace(/partner-pin-redemption-api/g, ''));
}

/** The lines of a text over 120 characters. */
const longLines = (text: string) => text.split('\n').filter((line) => line.length > 120).length;

describe('documents that stay true', () => {
  const code = [...productFolders, 'sql', 'test'].flatMap((d) => files(d, ['.ts', '.sql', '.mjs', '.yml']));

  it('cite no file the repository does not hold', () => {
    const texts = [...code, ...productFolders.flatMap((d) => files(d, ['.md'])), 'README.md'].filter(
      (file) => file !== thisFile,
    );
    const outside = texts.flatMap((file) =>
      citedDocuments(read(file))
        .filter((cited) => !known.has(cited) && !known.has(cited.replace(/^\.?\//, '')))
        .map((cited) => `${file} cites ${cited}`),
    );
    expect(outside).toEqual([]);
  });

  it('call the provider "provider" in the product and its documents', () => {
    const texts = [...productFolders.flatMap((d) => files(d, ['.ts', '.sql', '.mjs', '.yml', '.md'])), 'README.md'];
    const stray = texts.flatMap((file) => otherWords(read(file)).map((hit) => `${file}:${hit}`));
    expect(stray).toEqual([]);
  });

  it('keep code lines within 120 characters', () => {
    const over = code
      .filter((file) => file !== thisFile)
      .map((file) => ({ file, lines: longLines(read(file)) }))
      .filter(({ lines }) => lines > 0)
      .map(({ file, lines }) => `${file}: ${lines} lines over 120 characters`);
    expect(over).toEqual([]);
  });

  it('would catch each: a brief cited, another word, a long line', () => {
    expect(citedDocuments('// the exit codes of interface.md, see docs/DATA.md and README.md')).toEqual([
      'interface.md',
      'docs/DATA.md',
      'README.md',
    ]);
    expect(known.has('interface.md')).toBe(false);
    expect(known.has('docs/DATA.md')).toBe(true);
    expect(otherWords('// retried when the upstream answers 503')).toHaveLength(1);
    expect(otherWords("import { client } from '../sources/partner-api/client.js'; // the provider")).toEqual([]);
    expect(otherWords('the partner-api client')).toHaveLength(1);
    expect(otherWords('if (error instanceof UpstreamError) throw error;')).toHaveLength(1);
    expect(longLines(`${'x'.repeat(121)}\n${'y'.repeat(120)}`)).toBe(1);
  });
});
