#!/usr/bin/env node
/**
 * pinrecon's command line: every command of the README, each in its own file under cli/commands/.
 * Bad usage exits 2, as bad configuration does; a failed job exits 1.
 */
import { CommanderError } from 'commander';
import { privateUmask } from '../core/file-modes.js';
import { buildProgram, commandsFor, usageExitCode } from './program.js';

async function main(): Promise<void> {
  // Everything pinrecon writes (database, landing files, workbooks, mail) holds sales and keys: private to its owner.
  process.umask(privateUmask);
  const program = buildProgram(await commandsFor(process.argv));
  try {
    await program.parseAsync(process.argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      process.exitCode = usageExitCode(error);
      return;
    }
    throw error;
  }
}

await main();
