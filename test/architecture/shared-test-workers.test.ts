/**
 * The test files share their workers' modules (vitest.config.ts, `isolate: false`): that holds only while no test
 * changes process state the next file in the same worker would see. A test that sets or deletes an environment
 * variable, changes the working folder or mocks a module fails here with its file and line: pass the variable to
 * the spawned CLI (`runCli(args, { env })`), the folder as `cwd`, and use a real part instead of a mock.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repositoryRoot as root, typescriptFiles } from '../support/repository-files.js';

/** The one place allowed, with its reason. */
const allowed: Record<string, string> = {
  'test/support/temp-root.ts': 'vitest globalSetup: sets TMPDIR once, before any worker starts',
  'test/support/cli-in-process.ts': 'runs a command as a spawned CLI would; puts environment and folder back after it',
};

const processStateChange = new RegExp(
  [
    String.raw`\bprocess\.env(?:\.\w+|\[[^\]]+\])\s*(?:=(?!=)|\?\?=|\|\|=)`,
    String.raw`\bdelete\s+process\.env\b`,
    String.raw`\bObject\.assign\(\s*process\.env\b`,
    String.raw`\bprocess\.chdir\s*\(`,
    String.raw`\bvi\.(?:mock|doMock|stubEnv|stubGlobal)\s*\(`,
  ].join('|'),
  'g',
);

describe('tests that share their workers', () => {
  it('change no process state another test file could see', () => {
    const found: string[] = [];
    for (const file of typescriptFiles('test')) {
      if (allowed[file] || file === 'test/architecture/shared-test-workers.test.ts') continue;
      const text = readFileSync(path.join(root, file), 'utf8');
      for (const match of text.matchAll(processStateChange))
        found.push(`${file}:${text.slice(0, match.index).split('\n').length}: ${match[0]}`);
    }
    expect(found).toEqual([]);
  });

  it('the rule sees what it forbids', () => {
    const samples = [
      'process.env.TZ = "UTC"',
      "process.env['PINRECON_X'] = '1'",
      'delete process.env.HOME',
      'Object.assign(process.env, extra)',
      'process.chdir(dir)',
      "vi.mock('../x.js')",
      "vi.stubEnv('A', 'b')",
    ];
    for (const sample of samples) expect(sample.match(new RegExp(processStateChange.source))).not.toBeNull();
    expect('if (process.env.CI === "true")'.match(new RegExp(processStateChange.source))).toBeNull();
  });
});
