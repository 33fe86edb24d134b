/**
 * Every module opens with a short comment, at most 8 lines, saying what it is for; the longer reasoning lives in
 * docs/ARCHITECTURE.md ("Design notes by module"), where a reader of the design finds it (issue 17).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repositoryRoot as root, typescriptFiles } from '../support/repository-files.js';

const sourceFolders = ['cli', 'pipelines', 'sources', 'reports', 'config', 'core', 'doubles', 'bench', 'scripts'];
const maxHeaderLines = 8;

/** Lines of the module's opening comment: a block comment, or a run of line comments, before any code. */
function headerLines(text: string): number {
  const lines = text.split('\n');
  let first = lines[0]?.startsWith('#!') ? 1 : 0;
  while (first < lines.length && lines[first]!.trim() === '') first++;
  const opening = lines[first]?.trim() ?? '';
  let last = first;
  if (opening.startsWith('/*')) {
    while (last < lines.length && !lines[last]!.includes('*/')) last++;
    return last - first + 1;
  }
  while (last < lines.length && lines[last]!.trim().startsWith('//')) last++;
  return last - first;
}

describe('module headers', () => {
  const files = sourceFolders.flatMap(typescriptFiles);

  it(`every module's opening comment is at most ${maxHeaderLines} lines`, () => {
    expect(files.length).toBeGreaterThan(150);
    const long = files
      .map((file) => ({ file, lines: headerLines(readFileSync(path.join(root, file), 'utf8')) }))
      .filter(({ lines }) => lines > maxHeaderLines)
      .map(({ file, lines }) => `${file}: ${lines} lines`);
    expect(long).toEqual([]);
  });

  it('counts a block comment, a run of line comments, and nothing after code starts', () => {
    expect(headerLines('/**\n * one\n * two\n */\nimport x from "y";\n/** not a header */')).toBe(4);
    expect(headerLines('#!/usr/bin/env node\n// one\n// two\n// three\nconst a = 1;')).toBe(3);
    expect(headerLines('\n\n/** one line */\nexport {};')).toBe(1);
    expect(headerLines('import x from "y";\n/**\n * later\n */')).toBe(0);
    expect(headerLines(`/**\n${' * prose\n'.repeat(9)} */`)).toBe(11);
  });
});
