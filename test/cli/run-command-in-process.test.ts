/**
 * test/support/cli-in-process.ts stands in for a spawn of the built CLI only while the two agree: the same exit code
 * and console for a usage error, help, a failing job and a working one, and nothing of the command's environment,
 * folder, umask or exit code left in the test's process afterwards.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { runCommand } from '../support/cli-in-process.js';
import { temporaryDirectory } from '../support/ledger.js';

const temp = temporaryDirectory('in-process');
afterAll(() => temp.remove());

/** Timestamps differ between two runs; the rest of the console does not. */
const unstamped = (text: string) => text.replace(/^\d{4}-\d\d-\d\dT[\d:.]+Z /gm, '');

describe('a command run in-process', () => {
  it('exits and prints as the spawned CLI does', async () => {
    const configFile = path.join(temp.dir, 'pinrecon.config.json');
    writeFileSync(configFile, JSON.stringify({ database: path.join(temp.dir, 'p.duckdb') }));
    const cases = [
      ['query', '--nope'],
      ['findings', 'list', '--help'],
      ['query', 'SELEC 1', '--config', configFile],
      ['query', 'SELECT 42 AS answer', '--format', 'csv', '--config', configFile],
      ['verify', '--period', '2026-13', '--config', configFile],
    ];
    for (const args of cases) {
      const [spawned, inProcess] = [await runCli(args, { cwd: temp.dir }), await runCommand(args, { cwd: temp.dir })];
      expect({ args, code: inProcess.code }).toEqual({ args, code: spawned.code });
      expect(inProcess.stdout).toBe(spawned.stdout);
      expect(unstamped(inProcess.stderr)).toBe(unstamped(spawned.stderr));
    }
  });

  it('leaves the environment, folder, umask and exit code as they were', async () => {
    const before = { cwd: process.cwd(), umask: process.umask(), exitCode: process.exitCode, env: { ...process.env } };
    const configFile = path.join(temp.dir, 'from-env.json');
    writeFileSync(configFile, JSON.stringify({ database: path.join(temp.dir, 'none', 'p.duckdb') }));
    const failed = await runCommand(['query', 'SELECT 1'], {
      cwd: temp.dir,
      env: { PINRECON_CONFIG: 'from-env.json', HOME: undefined },
    });
    // The config named by the environment, found from the folder given: both were the command's.
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain(`There is no database at ${path.join(temp.dir, 'none', 'p.duckdb')}`);
    const after = { cwd: process.cwd(), umask: process.umask(), exitCode: process.exitCode, env: process.env };
    expect(after).toEqual(before);
  });
});
