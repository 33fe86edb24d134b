/** `pinrecon keys protect [--dry-run]`: stops keeping whole keys in a database and its landing files. */
import type { Command } from 'commander';
import { protectKeys, rewriteDatabaseFile, type KeysProtectSummary } from '../../pipelines/keys/protect.js';
import { warehouseSettings } from '../../config/warehouse-settings.js';
import { action, withGlobalOptions, withJobWarehouse, type GlobalOptions } from '../context.js';
import type { Output } from '../../core/output.js';

export interface ProtectOptions extends GlobalOptions {
  dryRun?: boolean;
}

export interface KeysProtectRequest {
  dryRun: boolean;
}

/** The command line of `keys protect` (issue 27: pure, tested in-process). */
export function parseKeysProtect(options: ProtectOptions): KeysProtectRequest {
  return { dryRun: Boolean(options.dryRun) };
}

export function registerKeys(program: Command): void {
  const keys = program.command('keys').description('how PINs are kept at rest (security.keys)');
  withGlobalOptions(
    keys
      .command('protect')
      .description(
        'mask every whole key kept in the database (sales, sales_quarantine) and in the landing files, keeping the ' +
          'last 4 characters and, in "hash" mode, an HMAC-SHA256; records the mode in the database',
      )
      .option('--dry-run', 'say what would be rewritten; change nothing'),
  ).action(
    action<ProtectOptions, []>(async ({ config, output }, options) => {
      const request = parseKeysProtect(options);
      const summary = await withJobWarehouse(config, (warehouse) => protectKeys(warehouse, config, request, output));
      // The old keys' freed pages are gone only when the file is written again (issue 34).
      const rewritten = request.dryRun
        ? undefined
        : await rewriteDatabaseFile(config.database, warehouseSettings(config));
      printSummary(summary, output);
      output.document({ ok: true, ...summary, ...(rewritten && { databaseBytes: rewritten }) });
    }),
  );
}

function printSummary(s: KeysProtectSummary, output: Output): void {
  const verb = s.dryRun ? 'would rewrite' : 'rewrote';
  output.result(
    [
      `keys protect${s.dryRun ? ' (dry run: nothing was changed)' : ''}: ${s.from} → ${s.to}`,
      `${verb} ${s.salesKeys} keys in sales, ${s.quarantineRecords} records in sales_quarantine`,
      `${verb} ${s.landingFiles.rewritten} of ${s.landingFiles.read} landing files in ${s.landingDir} ` +
        `(${s.landingFiles.keys} keys)`,
      ...(s.dryRun
        ? []
        : [
            'the database and its snapshot were written again, so no freed page keeps an old key; copies and backups ' +
              'of the database and the landing folder made before this still hold them: delete them',
          ]),
    ].join('\n'),
  );
}
