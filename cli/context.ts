/**
 * What every command shares: the global options (--config, --json), loading the configuration, and
 * turning errors into a clear message and the exit code of interface.md (0 ok, 1 job failed, 2 usage/config).
 */
import type { Command } from 'commander';
import { ConfigError, exitCodeFor, JobError, UsageError } from '../core/errors.js';
import { redactRememberedSecrets } from '../core/secret-redaction.js';
import { loadConfig, type LoadedConfig } from '../config/load.js';
import type { Config } from '../config/schema.js';
import { publishSnapshot, Warehouse } from '../core/warehouse.js';
import type { Output } from '../core/output.js';
import { ConsoleOutput } from './output.js';
import { protectOwnedFiles } from '../pipelines/keys/private-files.js';
import { warehouseSettings } from '../config/warehouse-settings.js';

export interface CommandContext extends LoadedConfig {
  output: Output;
}

export interface GlobalOptions {
  config?: string;
  json?: boolean;
}

/** Adds the options every command takes. */
export function withGlobalOptions(command: Command): Command {
  return command
    .option(
      '--config <file>',
      'config file (default: ./pinrecon.config.json, else $PINRECON_CONFIG, else built-in defaults)',
    )
    .option('--json', 'print the result as JSON for machines');
}

/**
 * Wraps a command's action: loads the config, runs it, reports failures. Sets process.exitCode rather than
 * exiting, so servers and files are closed by their own `finally` blocks.
 */
export function action<O extends GlobalOptions, A extends unknown[]>(
  run: (context: CommandContext, options: O, ...args: A) => Promise<void>,
): (...args: unknown[]) => Promise<void> {
  return async (...commanderArgs: unknown[]) => {
    // commander passes positional args, then the options object, then the Command.
    const command = commanderArgs[commanderArgs.length - 1] as Command;
    const options = command.optsWithGlobals() as O;
    const positional = commanderArgs.slice(0, -2) as A;
    const output = new ConsoleOutput(Boolean(options.json));
    try {
      const loaded = loadConfig({ file: options.config });
      protectOwnedFiles(loaded.config, output);
      for (const warning of loaded.warnings ?? []) output.warn(warning);
      await run({ ...loaded, output }, options, ...positional);
    } catch (error) {
      reportFailure(output, error);
      process.exitCode = exitCodeFor(error);
    }
  };
}

export function reportFailure(output: Output, error: unknown): void {
  // Whatever module's error carried a configured credential, it is not printed (issue 18).
  const message = redactRememberedSecrets(error instanceof Error ? error.message : String(error));
  output.error(message);
  if (error instanceof JobError && error.hint) output.error(`what to do: ${redactRememberedSecrets(error.hint)}`);
  const expected = error instanceof JobError || error instanceof UsageError || error instanceof ConfigError;
  if (!expected)
    output.error(
      'what to do: pinrecon did not expect this error. If it is not about this machine (disk, permissions, memory), run again with PINRECON_DEBUG=1 and report the stack trace.',
    );
  if (process.env.PINRECON_DEBUG && error instanceof Error && error.stack)
    output.error(redactRememberedSecrets(error.stack));
  const facts = error instanceof JobError ? error.facts : undefined;
  if (output.json) output.document({ ok: false, error: message, exitCode: exitCodeFor(error), ...facts });
}

/** Parses a YYYY-MM-DD option, naming the option on failure. */
export function parseDateOption(value: string | undefined, option: string): string | undefined {
  if (value === undefined) return undefined;
  if (
    !/^\d{4}-\d{2}-\d{2}$/.test(value) ||
    Number.isNaN(Date.parse(`${value}T00:00:00Z`)) ||
    new Date(`${value}T00:00:00Z`).toISOString().slice(0, 10) !== value
  ) {
    throw new UsageError(`${option} must be a date written YYYY-MM-DD, got "${value}".`);
  }
  return value;
}

/** Parses a YYYY-MM option. */
export function parsePeriodOption(value: string | undefined, option = '--period'): string {
  if (!value || !/^\d{4}-(0[1-9]|1[0-2])$/.test(value)) {
    throw new UsageError(`${option} must be a month written YYYY-MM, got "${value ?? ''}".`);
  }
  return value;
}

/**
 * Opens the configured database for a writing job, runs it, publishes the analysts' snapshot after a
 * success, and always closes the database.
 */
export async function withJobWarehouse<T>(config: Config, work: (warehouse: Warehouse) => Promise<T>): Promise<T> {
  const warehouse = await Warehouse.open(config.database, warehouseSettings(config));
  try {
    const result = await work(warehouse);
    await publishSnapshot(warehouse);
    return result;
  } finally {
    warehouse.close();
  }
}
