#!/usr/bin/env node
/**
 * pinrecon's command line: every command of interface.md, each in its own file under cli/commands/.
 * Bad usage exits 2, as bad configuration does; a failed job exits 1.
 */
import { Command, CommanderError } from 'commander';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { privateUmask } from '../core/file-modes.js';
import { packageRoot } from '../core/paths.js';
import { registerActions } from './commands/actions.js';
import { registerCatalog } from './commands/catalog.js';
import { registerClose, registerReopen } from './commands/close.js';
import { registerDemo } from './commands/demo.js';
import { registerExport } from './commands/export.js';
import { registerExtract } from './commands/extract.js';
import { registerFindings } from './commands/findings.js';
import { registerKeys } from './commands/keys.js';
import { registerLedger } from './commands/ledger.js';
import { registerQuery } from './commands/query.js';
import { registerReconcile } from './commands/reconcile.js';
import { registerReport } from './commands/report.js';
import { registerRun } from './commands/run.js';
import { registerSchedule } from './commands/schedule.js';
import { registerSimulateApi } from './commands/simulate-api.js';
import { registerVerify } from './commands/verify.js';

export function buildProgram(): Command {
  const version = (JSON.parse(readFileSync(path.join(packageRoot(), 'package.json'), 'utf8')) as { version: string })
    .version;
  const program = new Command('pinrecon')
    .description(
      'Reconcile partner PIN-redemption API sales against your ledger, in DuckDB, with Excel reports by email.',
    )
    .version(version)
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride();
  for (const register of [
    registerExtract,
    registerCatalog,
    registerLedger,
    registerReconcile,
    registerReport,
    registerFindings,
    registerActions,
    registerRun,
    registerClose,
    registerReopen,
    registerVerify,
    registerSchedule,
    registerQuery,
    registerExport,
    registerSimulateApi,
    registerDemo,
    registerKeys,
  ]) {
    register(program);
  }
  for (const command of program.commands) exitOverrideEverywhere(command);
  return program;
}

function exitOverrideEverywhere(command: Command): void {
  command.exitOverride();
  for (const sub of command.commands) exitOverrideEverywhere(sub);
}

async function main(): Promise<void> {
  // Everything pinrecon writes (database, landing files, workbooks, mail) holds sales and keys: private to its owner.
  process.umask(privateUmask);
  const program = buildProgram();
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
