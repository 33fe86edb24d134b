/**
 * `pinrecon close` signs a reconciled, complete period off (its findings frozen as signed, with a manifest);
 * `pinrecon reopen` reopens it (the sign-off stays in period_signoffs).
 */
import type { Command } from 'commander';
import { closePeriod, reopenPeriod } from '../../pipelines/close/close.js';
import { action, parsePeriodOption, withGlobalOptions, withJobWarehouse, type GlobalOptions } from '../context.js';

interface CloseCommandOptions extends GlobalOptions {
  period?: string;
  by: string;
  note?: string;
  allowUndecided?: boolean;
}

interface ReopenCommandOptions extends GlobalOptions {
  period?: string;
  by: string;
  reason: string;
}

export function registerClose(program: Command): void {
  withGlobalOptions(
    program
      .command('close')
      .description('signs a period off: freezes its findings and decisions with a manifest of what produced them')
      .requiredOption('--period <YYYY-MM>', 'the reconciled period to sign off')
      .requiredOption('--by <name>', 'who signs it off')
      .option('--note <text>', 'a note kept with the sign-off')
      .option('--allow-undecided', 'sign off even though some findings have no decision'),
  )
    .addHelpText(
      'after',
      `
The period must be completely extracted and reconciled since its last extraction; findings without a
decision refuse the close unless --allow-undecided. A later reconcile of the period compares itself with
the sign-off (recon_summary.signoff_status, recon_signoff_changes).

Example:
  pinrecon close --period 2026-01 --by "Ana Lima" --note "January close"`,
    )
    .action(
      action<CloseCommandOptions, []>(async ({ config, output }, options) => {
        const period = parsePeriodOption(options.period);
        const summary = await withJobWarehouse(config, (warehouse) =>
          closePeriod(
            warehouse,
            config,
            { period, by: options.by, note: options.note, allowUndecided: Boolean(options.allowUndecided) },
            output,
          ),
        );
        output.result(
          [
            `${period} signed off by ${summary.signedBy} at ${summary.signedAtZoned} (sign-off ${summary.signoffId})`,
            `${summary.findings} findings (${summary.undecided} undecided) as of ${summary.asOf}, reconcile run ${summary.runId}`,
            `content sha256 ${summary.contentSha256}`,
            `manifest: pinrecon ${summary.manifest.pinreconVersion}, sql ${summary.manifest.sqlSha256.slice(0, 12)}…, ` +
              `${summary.manifest.landingFiles.length} landing files, ${summary.manifest.ledgerFiles.length} ledger files`,
          ].join('\n'),
        );
        output.document({ ok: true, ...summary });
      }),
    );
}

export function registerReopen(program: Command): void {
  withGlobalOptions(
    program
      .command('reopen')
      .description('reopens a signed-off period (the sign-off stays in the history)')
      .requiredOption('--period <YYYY-MM>', 'the signed-off period')
      .requiredOption('--by <name>', 'who reopens it')
      .requiredOption('--reason <text>', 'why it is reopened'),
  ).action(
    action<ReopenCommandOptions, []>(async ({ config, output }, options) => {
      const period = parsePeriodOption(options.period);
      const signoff = await withJobWarehouse(config, (warehouse) =>
        reopenPeriod(warehouse, config, { period, by: options.by, reason: options.reason }, output),
      );
      output.result(
        `${period} reopened by ${signoff.reopenedBy} at ${signoff.reopenedAtZoned}: ${signoff.reopenReason} (sign-off ${signoff.signoffId} of ${signoff.signedBy} at ${signoff.signedAtZoned} kept)`,
      );
      output.document({ ok: true, ...signoff });
    }),
  );
}
