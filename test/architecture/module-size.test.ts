/**
 * Rooms that fit (issue 17): no module over 400 lines, the config schema included (issue 27: split by section).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repositoryRoot as root, typescriptFiles } from '../support/repository-files.js';

const sourceFolders = ['cli', 'pipelines', 'sources', 'reports', 'config', 'core', 'doubles', 'bench', 'scripts'];
const maxLines = 400;
const exempt = new Set<string>();

const lineCount = (file: string) => readFileSync(path.join(root, file), 'utf8').trimEnd().split('\n').length;

describe('module size', () => {
  const files = sourceFolders.flatMap(typescriptFiles).filter((file) => !exempt.has(file));

  it(`no module over ${maxLines} lines`, () => {
    expect(files.length).toBeGreaterThan(150);
    const over = files
      .map((file) => ({ file, lines: lineCount(file) }))
      .filter(({ lines }) => lines > maxLines)
      .map(({ file, lines }) => `${file}: ${lines} lines`);
    expect(over).toEqual([]);
  });
});
