/**
 * `pinrecon actions plan|approve|execute|list|export`: acting on decided findings (README "Acting on findings"):
 * decide → plan → approve (a second person) → execute (reversals) or export (claims, journal) → reconcile.
 */
import type { Command } from 'commander';
import { UsageError } from '../../core/errors.js';
import type { Warehouse } from '../../core/warehouse.js';
import type { Output } from '../../core/output.js';
import type { Config } from '../../config/schema.js';
import { openDatabaseOrSnapshot } from '../../pipelines/analysts/query.js';
import { approveActions } from '../../pipelines/actions/approve.js';
import { executeActions } from '../../pipelines/actions/execute.js';
import { exportActions, type ExportFileFormat, type ExportKind } from '../../pipelines/actions/export.js';
import { planActions } from '../../pipelines/actions/plan.js';
import { actionStatuses, listActions } from '../../pipelines/actions/store.js';
import { defaultDecidedBy } from '../../pipelines/decisions/findings.js';
import { resolveActor } from '../../pipelines/people/actor.js';
import { unattestedNotice } from '../../core/signatures.js';
import { action, withGlobalOptions, withJobWarehouse, type GlobalOptions } from '../context.js';
import {
  type ListFormat,
  listFormats,
  parseChoice,
  parseListFormat,
  periodOption,
  type ParseContext,
  type TypedActor,
  typedActor,
} from '../options.js';
import { printRows } from '../print.js';

const identityHelp = (who: string) =>
  `private key of ${who} (env PINRECON_IDENTITY): required, and the act signed, when the config names people`;

export interface PeriodOptions extends GlobalOptions {
  period: string;
  by?: string;
  identity?: string;
}

/** The period and who acts, as typed: the action resolves the person against the config's people. */
export interface ActsRequest {
  period: string;
  actor: TypedActor;
}

/** The command line of `actions plan`, checked (issue 27: pure, tested in-process). */
export function parseActionsPlan(options: PeriodOptions, at: ParseContext): ActsRequest {
  return { period: periodOption(options.period, at), actor: typedActor(options) };
}

export type ApproveOptions = PeriodOptions & { action?: string[]; all?: boolean };

/** The command line of `actions approve`, checked (issue 27: pure, tested in-process). */
export function parseActionsApprove(
  options: ApproveOptions,
  at: ParseContext,
): ActsRequest & { actionIds?: string[]; all?: boolean } {
  return { ...parseActionsPlan(options, at), actionIds: options.action, all: options.all };
}

export type ExecuteOptions = PeriodOptions & { dryRun?: boolean; afterSignoff?: boolean };

/** The command line of `actions execute`, checked (issue 27: pure; `by` defaults, in the action, to the OS user). */
export function parseActionsExecute(
  options: ExecuteOptions,
  at: ParseContext,
): { period: string; by?: string; dryRun?: boolean; afterSignoff: boolean } {
  return {
    period: periodOption(options.period, at),
    by: options.by,
    dryRun: options.dryRun,
    afterSignoff: Boolean(options.afterSignoff),
  };
}

export type ListOptions = PeriodOptions & { status?: string; format: string };

/**
 * The command line of `actions list`, checked (issue 27: pure, tested in-process). A status that is not one of the
 * actions' statuses is a usage error (it listed no action, silently, as if the period had none).
 */
export function parseActionsList(
  options: ListOptions,
  at: ParseContext,
): { period: string; status?: string; format: ListFormat } {
  const period = periodOption(options.period, at);
  const format = parseListFormat(options);
  const status = options.status === undefined ? undefined : parseChoice(options.status, actionStatuses, '--status');
  return { period, status, format };
}

export type ExportOptions = PeriodOptions & { kind: string; format?: string; out?: string; all?: boolean };

export interface ActionsExportRequest {
  period: string;
  kind: ExportKind;
  format?: ExportFileFormat;
  out?: string;
  /** Undefined: the OS user (the action asks). */
  by?: string;
  all?: boolean;
}

/** The command line of `actions export`, checked (issue 27: pure, tested in-process). */
export function parseActionsExport(options: ExportOptions, at: ParseContext): ActionsExportRequest {
  const period = periodOption(options.period, at);
  const kinds: readonly ExportKind[] = ['claim', 'undercharge', 'journal'];
  const kind = parseChoice(options.kind, kinds, '--kind', 'claim, undercharge or journal');
  const formats: readonly ExportFileFormat[] = ['xlsx', 'csv'];
  const format =
    options.format === undefined ? undefined : parseChoice(options.format, formats, '--format', 'xlsx or csv');
  return { period, kind, format, out: options.out, by: options.by, all: options.all };
}

export function registerActions(program: Command): void {
  const actions = program
    .command('actions')
    .description(
      'act on decided findings: plan reversals, claims and journal entries, approve them (a second person), execute, ' +
        'export',
    );

  withGlobalOptions(
    actions
      .command('plan')
      .description(
        "turn the period's decisions into proposed actions " +
          '(reverse → reversal, claim → claim, fix_ledger/write_off → journal)',
      )
      .requiredOption('--period <YYYY-MM>', 'the month')
      .option('--by <name>', "who proposes (default: the OS user name; with people configured, the key's person)")
      .option('--identity <file>', identityHelp('a preparer')),
  ).action(
    action<PeriodOptions, []>(async ({ config, output }, options) => {
      const { period, actor: who } = parseActionsPlan(options, { timeZone: config.timezone });
      const actor = resolveActor(config, who, 'preparer', 'plan actions');
      if (!actor.attested) output.info(unattestedNotice);
      const result = await withJobWarehouse(config, (warehouse) => planActions(warehouse, config, { period, actor }));
      const lines = [
        `planned ${period}: ${result.proposed.length} proposed, ${result.unchanged} unchanged, ` +
          `${result.canceled.length} canceled, ` +
          `${result.skipped.length} reverse decision(s) skipped`,
      ];
      for (const p of result.proposed) {
        const sale = p.transactionId ? ` tx ${p.transactionId}` : '';
        lines.push(
          `  proposed  ${p.actionId} ${p.kind.padEnd(8)} ${p.amount ?? ''} ${p.currency ?? ''} finding ` +
            `${p.findingId}${sale}`,
        );
      }
      for (const c of result.canceled) lines.push(`  canceled  ${c.actionId}: ${c.reason}`);
      for (const s of result.skipped) lines.push(`  skipped   finding ${s.findingId}: ${s.reason}`);
      if (result.proposed.length > 0) {
        lines.push(`next: a second person runs \`pinrecon actions approve --period ${period} --all --by NAME\``);
      }
      output.result(lines.join('\n'));
      output.document({ ok: true, ...result });
    }),
  );

  withGlobalOptions(
    actions
      .command('approve')
      .description('approve proposed actions (maker-checker: not by the person who decided the finding or planned it)')
      .requiredOption('--period <YYYY-MM>', 'the month')
      .option('--action <id...>', 'the actions to approve')
      .option('--all', 'every proposed action of the period')
      .option('--by <name>', "who approves (required unless the config names people: then the key's person)")
      .option('--identity <file>', identityHelp('an approver')),
  )
    .addHelpText(
      'after',
      `
Refused (exit 1, nothing approved) when the approver decided any of the findings or planned any of the
actions (names compared ignoring case, accents' forms and spaces), or when an action's amount is above
actions.approvalLimit of its currency, or its currency has no limit, and the approver is not one of
actions.approvers. With people in the config, --identity FILE (an approver's key) is required and each
approval is signed; every approval records the sha256 of the policy in force.`,
    )
    .action(
      action<ApproveOptions, []>(async ({ config, output }, options) => {
        const { period, actor: who, actionIds, all } = parseActionsApprove(options, { timeZone: config.timezone });
        if (config.people.length === 0 && who.by === undefined)
          throw new UsageError('actions approve needs --by NAME: who approves (a second person).');
        const actor = resolveActor(config, who, 'approver', 'approve actions');
        if (!actor.attested) output.info(unattestedNotice);
        const result = await withJobWarehouse(config, (warehouse) =>
          approveActions(warehouse, config, { period, actionIds, all, actor }),
        );
        const lines = [
          `${result.approvedBy} approved ${result.approved.length} action(s) of ${period}`,
          `  under approval policy ${result.policySha256} (limits, approvers, people and roles in force)`,
        ];
        for (const a of result.approved)
          lines.push(`  approved  ${a.actionId} ${a.kind.padEnd(8)} ${a.amount ?? ''} ${a.currency ?? ''}`);
        output.result(lines.join('\n'));
        output.document({ ok: true, ...result });
      }),
    );

  withGlobalOptions(
    actions
      .command('execute')
      .description(
        'carry out the ' +
          "period's approved reversals at the provider, exactly once each, and verify them by reading the sale",
      )
      .requiredOption('--period <YYYY-MM>', 'the month')
      .option('--dry-run', 'say what would be done; call nothing, change nothing')
      .option('--after-signoff', 'execute in a signed-off period (the next report says it changed since sign-off)')
      .option('--by <name>', 'who executes (default: the OS user name)'),
  )
    .addHelpText(
      'after',
      `
Each approved reversal: read the sale; already canceled → verified, no call. Else it is recorded in_flight,
"Reversal by transaction id" is called once, and the sale is read again: canceled → verified, else failed
with the provider's message (a refusal is never retried). No clear answer (a timeout, a 5xx, a dropped
connection) leaves it in_flight: it is never sent again in the run; a later run reads the sale first and asks
again only if it is still live, actions.resendAfterSeconds after the last request. After a crash, a re-run
settles an in_flight or executed action by reading the sale first. An action whose finding was decided again \
since it was planned is
canceled, with no call. In a signed-off period nothing is executed without --after-signoff. Claims and
journal entries are not executed here: see actions export. Exit 1 when any action failed.`,
    )
    .action(
      action<ExecuteOptions, []>(async ({ config, output }, options) => {
        const request = parseActionsExecute(options, { timeZone: config.timezone });
        const { period, dryRun, afterSignoff } = request;
        const by = request.by ?? defaultDecidedBy();
        const run = (warehouse: Warehouse) =>
          executeActions(warehouse, config, { period, dryRun, by, afterSignoff }, output);
        const result = dryRun ? await withReadWarehouse(config, output, run) : await withJobWarehouse(config, run);
        const lines = [
          dryRun
            ? `dry run: ${result.actions.length} reversal(s) of ${period} would be executed`
            : `executed ${period}: ${result.verified} verified, ${result.failed} failed, ${result.canceled} canceled` +
              (result.inFlight > 0 ? `, ${result.inFlight} left in flight (re-run later to settle)` : ''),
        ];
        for (const a of result.actions)
          lines.push(`  ${a.outcome.padEnd(9)} ${a.actionId} tx ${a.transactionId}: ${a.detail}`);
        if (!dryRun && result.verified > 0) {
          lines.push(`next: \`pinrecon reconcile --period ${period}\` clears the reversed findings`);
        }
        output.result(lines.join('\n'));
        output.document({ ok: result.failed === 0 && result.inFlight === 0, ...result });
        if (result.failed > 0 || result.inFlight > 0) process.exitCode = 1;
      }),
    );

  withGlobalOptions(
    actions
      .command('list')
      .description("the period's actions and their state")
      .requiredOption('--period <YYYY-MM>', 'the month')
      .option('--status <status>', `only actions in this status: ${actionStatuses.join(', ')}`)
      .option('--format <format>', `output: ${listFormats.join(', ')} (--json means json)`, 'table'),
  ).action(
    action<ListOptions, []>(async ({ config, output }, options) => {
      const { period, status, format } = parseActionsList(options, { timeZone: config.timezone });
      const rows = await withReadWarehouse(config, output, (warehouse) => listActions(warehouse, { period, status }));
      await printRows(rows, format, '(no actions)');
    }),
  );

  withGlobalOptions(
    actions
      .command('export')
      .description(
        'write the approved claims (overcharges, for the provider), undercharges (apart) or journal entries (for the ' +
          'ledger)',
      )
      .requiredOption('--period <YYYY-MM>', 'the month')
      .requiredOption('--kind <kind>', 'claim, undercharge or journal')
      .option('--format <format>', 'xlsx or csv (default: from --out, else xlsx)')
      .option(
        '--out <file>',
        'the file (default: reports.outDir/pinrecon-<period>-claims|undercharges|journal.<format>)',
      )
      .option('--all', 'write again, marked, the lines an earlier export wrote (default: only new lines)')
      .option('--by <name>', 'who exports (default: the OS user name)'),
  ).action(
    action<ExportOptions, []>(async ({ config, output }, options) => {
      const request = parseActionsExport(options, { timeZone: config.timezone });
      const { period } = request;
      const by = request.by ?? defaultDecidedBy();
      const result = await withJobWarehouse(config, (warehouse) =>
        exportActions(warehouse, config, { ...request, by }),
      );
      const what =
        result.kind === 'journal'
          ? `journal entr${result.entries === 1 ? 'y' : 'ies'} (${result.lines} lines)`
          : `${result.kind} line(s)`;
      const before = result.exportedBefore;
      const lines =
        result.file === null
          ? [`nothing new to export: ${before} line(s) were exported before (--all writes them again, marked)`]
          : [`wrote ${result.file}: ${result.entries} ${what}${before > 0 ? ` (${before} exported before)` : ''}`];
      if (result.nothingToPost.length > 0)
        lines.push(`  ${result.nothingToPost.length} action(s) with nothing to post or claim (amount 0): no line`);
      for (const t of result.totals) {
        const figures = Object.entries(t)
          .filter(([k]) => k !== 'currency')
          .map(([k, v]) => `${k} ${v}`);
        lines.push(`  ${t.currency ?? '(no currency)'}: ${figures.join(', ')}`);
      }
      for (const c of result.canceled) output.warn(`${c.actionId} canceled, not exported: ${c.reason}`);
      if (result.unapproved > 0) {
        output.warn(
          `${result.unapproved} ${result.kind} action(s) of ${period} are still proposed, not exported: approve ` +
            `them first`,
        );
      }
      output.result(lines.join('\n'));
      output.document({ ok: true, ...result });
    }),
  );
}

/** Reading only (list, a dry run): read-only, never waiting for a job's lock (then its published snapshot). */
async function withReadWarehouse<T>(
  config: Config,
  output: Output,
  work: (warehouse: Warehouse) => Promise<T>,
): Promise<T> {
  const warehouse = await openDatabaseOrSnapshot(config, output, { readOnly: true });
  try {
    return await work(warehouse);
  } finally {
    warehouse.close();
  }
}
