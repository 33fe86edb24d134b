/**
 * Everything pinrecon prints passes the one printable-text rule (core/text-safety.ts, issue 18 item 4): the
 * console is written only by `cli/output.ts` (ConsoleOutput) and `cli/print.ts`, which apply it. A new
 * `process.stdout.write`, `process.stderr.write` or `console.log` anywhere else fails here with its file and
 * line: route it through `Output` or `cli/print.ts` instead.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repositoryRoot as root, typescriptFiles } from '../support/repository-files.js';

const sourceFolders = ['core', 'config', 'sources', 'pipelines', 'reports', 'cli'];

/** Files allowed to write to the console, each with its reason. */
const allowed: Record<string, string> = {
  'cli/print.ts': 'streams data on stdout through printable/printableJson',
  'core/warehouse.ts': 'the lock-wait line passes printable (checked below)',
};

const consoleWrite = /\bprocess\.(?:stdout|stderr)\.write\s*\(|\bconsole\.(?:log|error|warn|info|debug)\s*\(/g;

describe('console writes', () => {
  it('happen only where the printable-text rule is applied', () => {
    const found: string[] = [];
    for (const file of sourceFolders.flatMap(typescriptFiles)) {
      if (allowed[file]) continue;
      const text = readFileSync(path.join(root, file), 'utf8');
      for (const match of text.matchAll(consoleWrite))
        found.push(`${file}:${text.slice(0, match.index).split('\n').length}: ${match[0]}`);
    }
    expect(found).toEqual([]);
  });

  it('the allowed ones apply it', () => {
    const warehouse = readFileSync(path.join(root, 'core/warehouse.ts'), 'utf8');
    for (const line of warehouse.split('\n').filter((l) => new RegExp(consoleWrite.source).test(l)))
      expect(line).toContain('printable(');
    const print = readFileSync(path.join(root, 'cli/print.ts'), 'utf8');
    expect(print.match(/process\.stdout\.write/g)).toHaveLength(1); // the one private writer the printable helpers use
  });
});
