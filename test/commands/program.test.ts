/**
 * The command line's program in-process (issue 27 item 5): which command modules a line loads, and the exit code of
 * commander's usage errors (main.ts sets it), so only one spawned case per command checks its wiring.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { commandsFor, usageExitCode } from '../../cli/program.js';
import { refused } from './drive.js';

describe('the program', () => {
  it("loads only the named command's module, and every one for help, a typo or no command", async () => {
    expect(await commandsFor(['node', 'pinrecon', 'report', '--period', '2026-01'])).toHaveLength(1);
    const all = (await commandsFor(['node', 'pinrecon'])).length;
    expect(all).toBeGreaterThan(20);
    expect(await commandsFor(['node', 'pinrecon', 'reprot'])).toHaveLength(all);
    expect(await commandsFor(['node', 'pinrecon', '--help'])).toHaveLength(all);
  });

  it('exits 2 on bad usage (a group without its subcommand, no command, an unknown option or command)', async () => {
    for (const argv of [['ledger'], [], ['reconcile', '--period', '2026-01', '--bogus'], ['ledger', 'bogus']]) {
      const usage = await refused(argv);
      expect(usageExitCode(usage.error), argv.join(' ')).toBe(2);
    }
    const group = await refused(['ledger']);
    expect(group.stderr).toMatch(/Usage: pinrecon ledger/);
    expect((await refused([])).stderr).toMatch(/Usage: pinrecon/);
  });

  it('exits 0 for --help and --version', async () => {
    for (const argv of [['--help'], ['ledger', '--help'], ['report', '--help'], ['--version']])
      expect(usageExitCode((await refused(argv)).error), argv.join(' ')).toBe(0);
    expect((await refused(['--version'])).stdout).toMatch(/^\d+\.\d+\.\d+/);
  });
});

describe('every command', () => {
  const root = path.resolve(import.meta.dirname, '..', '..');
  const commands = readdirSync(path.join(root, 'cli', 'commands')).filter((file) => file.endsWith('.ts'));
  const tests = readdirSync(import.meta.dirname)
    .filter((file) => file.endsWith('.test.ts'))
    .map((file) => readFileSync(path.join(import.meta.dirname, file), 'utf8'));

  it('has a pure parse function, and a test here that imports it (issue 27 item 5)', async () => {
    expect(commands.length).toBeGreaterThan(20);
    for (const file of commands) {
      const module = (await import(`../../cli/commands/${file.replace(/\.ts$/, '.js')}`)) as Record<string, unknown>;
      const parses = Object.entries(module).filter(
        ([name, value]) => /^parse[A-Z]/.test(name) && value instanceof Function,
      );
      expect(parses.length, `cli/commands/${file} exports no parse function`).toBeGreaterThan(0);
      const imported = `from '../../cli/commands/${file.replace(/\.ts$/, '.js')}'`;
      expect(
        tests.some((text) => text.includes(imported)),
        `no test in test/commands imports ${file}`,
      ).toBe(true);
    }
  });
});
