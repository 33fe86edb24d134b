/**
 * The command line's program in-process (issue 27 item 5): which command modules a line loads, and the exit code of
 * commander's usage errors (main.ts sets it), so only one spawned case per command checks its wiring.
 */
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
