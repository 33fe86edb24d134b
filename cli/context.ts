/**
 * What every command shares: the global options (--config, --json), loading the configuration, and
 * turning errors into a clear message and the exit code the README gives (0 ok, 1 job failed, 2 usage/config).
 */
import path from 'node:path';
import type { Command } from 'commander';
import { ConfigError, exitCodeFor, JobError, UsageError } from '../core/errors.js';
import { redactRememberedSecrets } from '../core/secret-redaction.js';
import { keepBodiesIn } from '../core/debug-bodies.js';
import { loadConfig, type LoadedConfig } from '../config/load.js';
import type { Config } from '../config/schema.js';
import { publishSnapshot, Warehouse } from '../core/warehouse.js';
import type { Output } from '../core/output.js';
import { ConsoleOutput } from './output.js';
import { analystsAccess, protectOwnedFiles } from '../pipelines/keys/private-files.js';
import { warehouseSettings } from '../config/warehouse-settings.js';

export interface CommandContext extends LoadedConfig {
  output: Output;
}

export interface GlobalOptions {
  config?: string;
  json?: boolean;
  logFormat?: string;
  debug?: boolean;
}

/** The options every command takes, checked (pure: the `action` wrapper reports what it throws). */
export function parseGlobalOptions(options: GlobalOptions): { logFormat: 'text' | 'json'; json: boolean } {
  if (options.logFormat !== undefined && !['text', 'json'].includes(options.logFormat)) {
    throw new UsageError(`--log-format must be "text" or "json", got "${options.logFormat}".`);
  }
  return { logFormat: options.logFormat === 'json' ? 'json' : 'text', json: Boolean(options.json) };
}

/** Adds the options every command takes. */
export function withGlobalOptions(command: Command): Command {
  return command
    .option(
      '--config <file>',
      'config file (default: $PINRECON_CONFIG, else ./pinrecon.config.json, else built-in defaults)',
    )
    .option('--json', 'print the result as JSON for machines')
    .option(
      '--log-format <format>',
      'stderr lines as "text" (timestamped off a terminal) or "json" (one object a line)',
    )
    .option('--debug', "keep remote servers' whole error answers in a private file (0600) beside the database");
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
    const logFormat = options.logFormat === 'json' ? 'json' : 'text';
    const output = new ConsoleOutput(Boolean(options.json), undefined, undefined, undefined, undefined, logFormat);
    try {
      parseGlobalOptions(options);
      const loaded = loadConfig({ file: options.config });
      // Which config a command ran with is never a guess (issue 31).
      output.info(`config: ${describeConfigSource(loaded)}`);
      protectOwnedFiles(loaded.config, output);
      // Issue 34: errors say only a body's size and digest; --debug keeps the bodies themselves, privately.
      if (options.debug) {
        const file = path.join(path.dirname(loaded.config.database), `pinrecon-debug-${process.pid}.log`);
        keepBodiesIn(file);
        output.info(`--debug: remote servers' error answers are kept whole in ${file} (0600)`);
      }
      for (const warning of loaded.warnings ?? []) output.warn(warning);
      await run({ ...loaded, output }, options, ...positional);
    } catch (error) {
      reportFailure(output, error);
      process.exitCode = exitCodeFor(error);
    }
  };
}

/** "FILE (from --config)" or "built-in defaults", and the variables that set keys (names only, never values). */
export function describeConfigSource(loaded: LoadedConfig): string {
  const how = {
    option: 'from --config',
    environment: 'from $PINRECON_CONFIG',
    'working directory': 'found in the working directory',
    defaults: '',
  }[loaded.chosenBy ?? 'defaults'];
  const file = loaded.file ? `${loaded.file}${how ? ` (${how})` : ''}` : 'built-in defaults (no file)';
  const variables = (loaded.environment ?? []).map((setting) => setting.variable);
  return variables.length ? `${file}; environment: ${variables.join(', ')}` : file;
}

export function reportFailure(output: Output, error: unknown): void {
  // Whatever module's error carried a configured credential, it is not printed (issue 18).
  const message = redactRememberedSecrets(error instanceof Error ? error.message : String(error));
  output.error(message);
  if (error instanceof JobError && error.hint) output.error(`what to do: ${redactRememberedSecrets(error.hint)}`);
  const expected = error instanceof JobError || error instanceof UsageError || error instanceof ConfigError;
  if (!expected)
    output.error(
      'what to do: pinrecon did not expect this error. If it is not about this machine (disk, permissions, memory), ' +
        'run again with PINRECON_DEBUG=1 and report the stack trace.',
    );
  if (process.env.PINRECON_DEBUG && error instanceof Error && error.stack)
    output.error(redactRememberedSecrets(error.stack));
  const facts = error instanceof JobError ? error.facts : undefined;
  if (output.json) output.document({ ok: false, error: message, exitCode: exitCodeFor(error), ...facts });
}

export interface JobWarehouseOptions {
  /**
   * The job only reads (verify, audit-pack): the run it records reaches the snapshot with the next job that changes
   * something, and this one copies nothing (issue 33: at 10M sales a snapshot is gigabytes).
   */
  readsOnly?: boolean;
}

/**
 * Opens the configured database for a job, runs it, publishes the analysts' snapshot after it, failed or not (issue
 * 31: analysts see the failed run), unless the job only reads, and always closes the database.
 */
export async function withJobWarehouse<T>(
  config: Config,
  work: (warehouse: Warehouse) => Promise<T>,
  options: JobWarehouseOptions = {},
): Promise<T> {
  const access = analystsAccess(config);
  const warehouse = await Warehouse.open(config.database, warehouseSettings(config));
  const publish = () => (options.readsOnly ? Promise.resolve('') : publishSnapshot(warehouse, access));
  try {
    const result = await work(warehouse);
    await publish();
    return result;
  } catch (error) {
    // The job's own error is what the caller reports; a snapshot that cannot be written then is secondary.
    await publish().catch(() => undefined);
    throw error;
  } finally {
    warehouse.close();
  }
}
