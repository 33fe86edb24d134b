/**
 * The command line's program (issue 27): every command's module, loaded when asked for, and the commander program
 * built from their registers. Apart from main.ts, which runs it, so a test can build it in-process and drive a
 * command's options without running its job.
 */
import { Command, type CommanderError } from 'commander';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { packageRoot } from '../core/paths.js';
import { writeLibraryError } from './output.js';

export type Register = (program: Command) => void;

/**
 * Each command's module, loaded when asked for: a command run loads only its own pipeline (its start-up was the
 * whole program's, ≈0.9 CPU-s, a third of it modules the command never uses); help and a mistyped name load all.
 */
const commandModules: Record<string, () => Promise<Register[]>> = {
  extract: async () => [(await import('./commands/extract.js')).registerExtract],
  catalog: async () => [(await import('./commands/catalog.js')).registerCatalog],
  ledger: async () => [(await import('./commands/ledger.js')).registerLedger],
  reconcile: async () => [(await import('./commands/reconcile.js')).registerReconcile],
  report: async () => [(await import('./commands/report.js')).registerReport],
  findings: async () => [(await import('./commands/findings.js')).registerFindings],
  matches: async () => [(await import('./commands/matches.js')).registerMatches],
  actions: async () => [(await import('./commands/actions.js')).registerActions],
  run: async () => [(await import('./commands/run.js')).registerRun],
  close: async () => [(await import('./commands/close.js')).registerClose],
  reopen: async () => [(await import('./commands/close.js')).registerReopen],
  verify: async () => [(await import('./commands/verify.js')).registerVerify],
  'audit-pack': async () => [(await import('./commands/audit-pack.js')).registerAuditPack],
  schedule: async () => [(await import('./commands/schedule.js')).registerSchedule],
  query: async () => [(await import('./commands/query.js')).registerQuery],
  export: async () => [(await import('./commands/export.js')).registerExport],
  'simulate-api': async () => [(await import('./commands/simulate-api.js')).registerSimulateApi],
  demo: async () => [(await import('./commands/demo.js')).registerDemo],
  keys: async () => [(await import('./commands/keys.js')).registerKeys],
  config: async () => [(await import('./commands/config.js')).registerConfig],
  test: async () => [(await import('./commands/test.js')).registerTest],
  identity: async () => [(await import('./commands/identity.js')).registerIdentity],
  serve: async () => [(await import('./commands/serve.js')).registerServe],
};

/** The registers of the command named first on the command line, or of every command (help, a typo, none). */
export async function commandsFor(argv: string[]): Promise<Register[]> {
  const named = argv[2];
  const wanted = named !== undefined && Object.hasOwn(commandModules, named) ? [named] : Object.keys(commandModules);
  return (await Promise.all(wanted.map((name) => commandModules[name]!()))).flat();
}

/** The program of these commands; usage errors throw a CommanderError (main.ts turns them into exit 2). */
export function buildProgram(registers: Register[]): Command {
  const version = (JSON.parse(readFileSync(path.join(packageRoot(), 'package.json'), 'utf8')) as { version: string })
    .version;
  const program = new Command('pinrecon')
    .description(
      'Reconcile partner PIN-redemption API sales against your ledger, in DuckDB, with Excel reports by email.',
    )
    .version(version)
    .showHelpAfterError('(run with --help for usage)')
    // Usage errors are timestamped off a terminal like every other stderr line (issue 31).
    .configureOutput({ writeErr: writeLibraryError })
    .exitOverride();
  for (const register of registers) register(program);
  for (const command of program.commands) exitOverrideEverywhere(command);
  return program;
}

/**
 * The exit code of commander's usage error: --help and --version succeed; help shown because a command group got no
 * subcommand (`pinrecon ledger`, or no command at all) is bad usage, like an unknown option (commander reports both
 * with exitCode 1).
 */
export function usageExitCode(error: CommanderError): number {
  const harmless = ['commander.helpDisplayed', 'commander.version'];
  return harmless.includes(error.code) || error.exitCode === 0 ? 0 : 2;
}

function exitOverrideEverywhere(command: Command): void {
  command.exitOverride();
  for (const sub of command.commands) exitOverrideEverywhere(sub);
}
