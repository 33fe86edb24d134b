/**
 * `pinrecon config show [--check]` (issue 31): which config file was loaded and why, the environment variables
 * that set keys, and every resolved value with credentials redacted; `--check` then tries the database, the
 * provider's token and the SMTP relay, like `dbt debug` (pipelines/ops/config-check.ts), exit 1 when one fails.
 */
import type { Command } from 'commander';
import { redactConfig } from '../../config/load.js';
import { JobError } from '../../core/errors.js';
import { action, describeConfigSource, type GlobalOptions, withGlobalOptions } from '../context.js';

export interface ConfigShowOptions extends GlobalOptions {
  check?: boolean;
}

export interface ConfigShowRequest {
  check: boolean;
}

/** The command line of `config show` (issue 27: pure, tested in-process). */
export function parseConfigShow(options: ConfigShowOptions): ConfigShowRequest {
  return { check: Boolean(options.check) };
}

export function registerConfig(program: Command): void {
  const group = program.command('config').description('the configuration pinrecon runs with');
  withGlobalOptions(
    group
      .command('show')
      .description('the config file and variables used, and every resolved value (credentials redacted)')
      .option('--check', 'also try the database, the provider (a token) and the SMTP relay; exit 1 if one fails'),
  )
    .addHelpText(
      'after',
      `
Where the config comes from: --config FILE, else $PINRECON_CONFIG, else ./pinrecon.config.json, else built-in
defaults. Any key can be set from the environment as PINRECON_<SECTION>__<KEY> (words with _, levels with __),
e.g. PINRECON_API__MAX_REQUESTS_PER_SECOND=10 or PINRECON_EMAIL__TO='["finance@example.com"]'; values are read
as JSON when the key is not text. The older names (PINRECON_API_SECRET, PINRECON_SMTP_URL, …) still work.

Example:
  PINRECON_CONFIG=/etc/pinrecon/pinrecon.config.json pinrecon config show --check`,
    )
    .action(
      action<ConfigShowOptions, []>(async (loaded, options) => {
        const { config, output } = loaded;
        const request = parseConfigShow(options);
        const environment = (loaded.environment ?? []).map((s) => ({ variable: s.variable, key: s.keyPath.join('.') }));
        const shown = redactConfig(config);
        output.result(
          [
            `config: ${describeConfigSource(loaded)}`,
            `environment: ${environment.map((e) => `${e.variable} → ${e.key}`).join(', ') || 'none sets a key'}`,
            JSON.stringify(shown, null, 2),
          ].join('\n'),
        );
        const document = { file: loaded.file ?? null, chosenBy: loaded.chosenBy, environment, config: shown };
        if (!request.check) {
          output.document({ ok: true, ...document });
          return;
        }
        const { checkConfig } = await import('../../pipelines/ops/config-check.js');
        const checks = await checkConfig(config);
        output.result(checks.map((c) => `${c.name.padEnd(9)}${c.ok ? 'OK  ' : 'FAIL'}  ${c.detail}`).join('\n'));
        const failed = checks.filter((c) => !c.ok);
        if (failed.length === 0) {
          output.document({ ok: true, ...document, checks });
          return;
        }
        throw new JobError(
          `config check: ${failed.map((c) => c.name).join(', ')} failed.`,
          'Fix what each FAIL line says (the key or variable it names), then run pinrecon config show --check again.',
          { facts: { ...document, checks } },
        );
      }),
    );
}
