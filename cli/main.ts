#!/usr/bin/env node
/**
 * pinrecon's command line: every command of the README, each in its own file under cli/commands/.
 * Bad usage exits 2, as bad configuration does; a failed job exits 1.
 */
import { CommanderError } from 'commander';
import { privateUmask } from '../core/file-modes.js';
import { buildProgram, commandsFor } from './program.js';

async function main(): Promise<void> {
  // Everything pinrecon writes (database, landing files, workbooks, mail) holds sales and keys: private to its owner.
  process.umask(privateUmask);
  const program = buildProgram(await commandsFor(process.argv));
  try {
    await program.parseAsync(process.argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version succeed; help shown because a command group got no subcommand (`pinrecon ledger`,
      // or no command at all) is bad usage, like an unknown option (commander reports both with exitCode 1).
      const harmless = ['commander.helpDisplayed', 'commander.version'];
      process.exitCode = harmless.includes(error.code) || error.exitCode === 0 ? 0 : 2;
      return;
    }
    throw error;
  }
}

await main();
