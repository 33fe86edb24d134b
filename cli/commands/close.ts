/**
 * `pinrecon close` signs a reconciled, complete period off (its findings frozen as signed, with a manifest);
 * `pinrecon reopen` reopens it (the sign-off stays in period_signoffs).
 */
import type { Command } from 'commander';
import type { Config } from '../../config/schema.js';
import { UsageError } from '../../core/errors.js';
import { closePeriod, reopenPeriod } from '../../pipelines/close/close.js';
import { writeReport } from '../../pipelines/report/report.js';
import { resolveActor, type Actor } from '../../pipelines/people/actor.js';
import { action, withGlobalOptions, withJobWarehouse, type GlobalOptions } from '../context.js';
import { periodOption, type ParseContext, type TypedActor, typedActor } from '../options.js';

export interface CloseCommandOptions extends GlobalOptions {
  period?: string;
  by?: string;
  identity?: string;
  note?: string;
  allowUndecided?: boolean;
  allowOpen?: boolean;
  email?: boolean;
  dryRun?: boolean;
}

export interface ReopenCommandOptions extends GlobalOptions {
  period?: string;
  by?: string;
  identity?: string;
  reason: string;
}

export interface CloseRequest {
  period: string;
  actor: TypedActor;
  note?: string;
  allowUndecided: boolean;
  allowOpen: boolean;
  email: boolean;
  dryRun?: boolean;
}

export interface ReopenRequest {
  period: string;
  actor: TypedActor;
  reason: string;
}

/** The command line of `close`, checked (issue 27: pure, tested in-process). */
export function parseClose(options: CloseCommandOptions, at: ParseContext): CloseRequest {
  return {
    period: periodOption(options.period, at),
    actor: typedActor(options),
    note: options.note,
    allowUndecided: Boolean(options.allowUndecided),
    allowOpen: Boolean(options.allowOpen),
    email: Boolean(options.email),
    dryRun: options.dryRun,
  };
}

/** The command line of `reopen`, checked (issue 27: pure, tested in-process). */
export function parseReopen(options: ReopenCommandOptions, at: ParseContext): ReopenRequest {
  return {
    period: periodOption(options.period, at),
    actor: typedActor(options),
    reason: options.reason,
  };
}

const identityHelp =
  "a signer's private key (env PINRECON_IDENTITY): required, and the act signed, when the config names people";

/** The person signing or reopening (issue 28): a signer's key with people configured, else the typed --by. */
function signerOf(config: Config, options: { by?: string; identity?: string }, act: string): Actor {
  if (config.people.length === 0 && options.by === undefined)
    throw new UsageError(`${act} needs --by NAME (or, with people configured, --identity FILE).`);
  return resolveActor(config, options, 'signer', act);
}

export function registerClose(program: Command): void {
  withGlobalOptions(
    program
      .command('close')
      .description('signs a period off: freezes its findings and decisions with a manifest of what produced them')
      .requiredOption('--period <YYYY-MM>', 'the reconciled period to sign off')
      .option('--by <name>', "who signs it off (with people configured: the key's person)")
      .option('--identity <file>', identityHelp)
      .option('--note <text>', 'a note kept with the sign-off')
      .option('--allow-undecided', 'sign off even though some findings have no decision')
      .option('--allow-open', 'sign off even though some findings are investigating (the sign-off lists them)')
      .option('--email', "then send the period's report, with the seal's sha256 and the signer's key (issue 28)")
      .option('--dry-run', 'with --email: write the email as .eml beside the workbook instead of sending it'),
  )
    .addHelpText(
      'after',
      `
The period must be completely extracted and reconciled since its last extraction; findings without a
decision refuse the close unless --allow-undecided, and findings still investigating unless --allow-open.
With people in the config the signer's key (--identity, role signer) signs the sign-off. \
A later reconcile of the period compares itself with
the sign-off (recon_summary.signoff_status, recon_signoff_changes).

Example:
  pinrecon close --period 2026-01 --by "Ana Lima" --note "January close"`,
    )
    .action(
      action<CloseCommandOptions, []>(async ({ config, output }, options) => {
        const request = parseClose(options, { timeZone: config.timezone });
        const { period } = request;
        const actor = signerOf(config, request.actor, 'close');
        const close = {
          period,
          by: actor.name,
          note: request.note,
          allowUndecided: request.allowUndecided,
          allowOpen: request.allowOpen,
          signer: actor.signer,
          sealSigner: actor.signer,
        };
        const summary = await withJobWarehouse(config, async (warehouse) => {
          const closed = await closePeriod(warehouse, config, close, output);
          // Issue 28: the email carries the seal's sha256, so a copy of it lives outside the database.
          const email = request.email
            ? await writeReport(warehouse, config, { period, email: true, dryRun: request.dryRun }, output)
            : undefined;
          return { ...closed, report: email };
        });
        output.result(
          [
            `${period} signed off by ${summary.signedBy} at ${summary.signedAtZoned} (sign-off ${summary.signoffId})`,
            `${summary.findings} findings (${summary.undecided} undecided) as of ${summary.asOf}, reconcile run ` +
              `${summary.runId}`,
            `content sha256 ${summary.contentSha256}`,
            `Seal sha256: ${summary.sealSha256} (keep it outside the database: pinrecon verify --seal checks it)`,
            `manifest: pinrecon ${summary.manifest.pinreconVersion}, sql ` +
              `${summary.manifest.sqlSha256.slice(0, 12)}…, ` +
              `${summary.manifest.landingFiles.length} landing files, ${summary.manifest.ledgerFiles.length} ledger ` +
              `files`,
          ].join('\n'),
        );
        if (summary.report?.email?.eml) output.result(summary.report.email.eml);
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
      .option('--by <name>', "who reopens it (with people configured: the key's person)")
      .option('--identity <file>', identityHelp)
      .requiredOption('--reason <text>', 'why it is reopened'),
  ).action(
    action<ReopenCommandOptions, []>(async ({ config, output }, options) => {
      const { period, actor: who, reason } = parseReopen(options, { timeZone: config.timezone });
      const actor = signerOf(config, who, 'reopen');
      const reopen = { period, by: actor.name, reason, signer: actor.signer };
      const signoff = await withJobWarehouse(config, (warehouse) => reopenPeriod(warehouse, config, reopen, output));
      output.result(
        `${period} reopened by ${signoff.reopenedBy} at ${signoff.reopenedAtZoned}: ${signoff.reopenReason} ` +
          `(sign-off ${signoff.signoffId} of ${signoff.signedBy} at ${signoff.signedAtZoned} kept)`,
      );
      output.document({ ok: true, ...signoff });
    }),
  );
}
