/**
 * `pinrecon findings import|decide|list|history`: decisions on findings (README "Acting on findings",
 * "Decisions after sign-off, stale workbooks, audit"). Decisions are typed into the workbook's finding sheets
 * (or given here, one by one or in bulk) and outlive every re-run of reconcile.
 */
import type { Command } from 'commander';
import { decisions } from '../../core/decisions.js';
import { UsageError } from '../../core/errors.js';
import type { Output } from '../../core/output.js';
import { Warehouse } from '../../core/warehouse.js';
import { findingFamilyNames, findingTypeNames } from '../../core/finding-types.js';
import type { DecisionsResult } from '../../pipelines/decisions/recording.js';
import {
  decideFindings,
  decideInBulk,
  describeDecisions,
  importDecisions,
} from '../../pipelines/decisions/findings.js';
import { decisionHistory, listFindings } from '../../pipelines/decisions/findings-list.js';
import type { FindingFilter } from '../../pipelines/decisions/findings.js';
import { action, withGlobalOptions, withJobWarehouse, type GlobalOptions } from '../context.js';
import {
  type ListFormat,
  listFormats,
  parseAmountOption,
  parseChoice,
  parseDateOption,
  parseListFormat,
  periodOption,
  type ParseContext,
  type TypedActor,
  typedActor,
} from '../options.js';
import { printRows } from '../print.js';
import { warehouseSettings } from '../../config/warehouse-settings.js';
import { unattestedNotice } from '../../core/signatures.js';
import { resolveActor } from '../../pipelines/people/actor.js';

export interface ImportOptions extends GlobalOptions {
  by?: string;
  identity?: string;
  overwrite?: boolean;
}

export interface DecideOptions extends GlobalOptions {
  decision: string;
  note?: string;
  owner?: string;
  expectedClearBy?: string;
  by?: string;
  identity?: string;
  period?: string;
  type?: string[];
  family?: string;
  undecided?: boolean;
  maxAmount?: string;
  maxExposure?: string;
  dryRun?: boolean;
}

export interface HistoryOptions extends GlobalOptions {
  period?: string;
  format: string;
}

/** The families `--family` takes, from the registry of finding types (issue 27). */
const families = findingFamilyNames;

const identityHelp =
  'private key of the person deciding (env PINRECON_IDENTITY): required, and the act signed, when the config names ' +
  'people';

export interface ListOptions extends GlobalOptions {
  period: string;
  undecided?: boolean;
  format: string;
}

export interface FindingsImportRequest {
  file: string;
  actor: TypedActor;
  overwrite: boolean;
}

/** The command line of `findings import`, checked (issue 27: pure, tested in-process). */
export function parseFindingsImport(options: ImportOptions, file: string): FindingsImportRequest {
  return { file, actor: typedActor(options), overwrite: Boolean(options.overwrite) };
}

export interface FindingsDecideRequest {
  decision: string;
  note?: string;
  owner?: string;
  expectedClearBy?: string;
  actor: TypedActor;
  /** Named by id, or chosen by a period's filters (then a dry run only says what would be decided). */
  chosen: { findingIds: string[] } | { filter: FindingFilter; dryRun: boolean };
}

/** The command line of `findings decide`, checked (issue 27: pure, tested in-process). */
export function parseFindingsDecide(
  options: DecideOptions,
  findingIds: string[],
  at: ParseContext,
): FindingsDecideRequest {
  const decision = parseChoice(options.decision, decisions, '--decision');
  const expectedClearBy = parseDateOption(options.expectedClearBy, '--expected-clear-by');
  const decided = { decision, note: options.note, owner: options.owner, expectedClearBy };
  const actor = typedActor(options);
  const filters = ['type', 'family', 'undecided', 'maxAmount', 'maxExposure', 'dryRun'] as const;
  const flag = (name: string) => `--${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
  if (options.period === undefined) {
    const used = filters.filter((name) => options[name] !== undefined);
    if (used.length > 0)
      throw new UsageError(`${used.map(flag).join(', ')} choose findings of a period: give --period YYYY-MM too.`);
    if (findingIds.length === 0) {
      throw new UsageError(
        'Name the findings: finding ids (see pinrecon findings list --period P), or --period P with filters.',
      );
    }
    return { ...decided, actor, chosen: { findingIds } };
  }
  if (findingIds.length > 0)
    throw new UsageError('Choose findings either by id or with --period and filters, not both.');
  const period = periodOption(options.period, at);
  for (const type of options.type ?? [])
    parseChoice(type, findingTypeNames, '--type', `among ${findingTypeNames.join(', ')}`);
  if (options.family !== undefined) parseChoice(options.family, families, '--family');
  const filter = {
    period,
    types: options.type,
    family: options.family,
    undecided: options.undecided,
    maxAmount: parseAmountOption(options.maxAmount, '--max-amount'),
    maxExposure: parseAmountOption(options.maxExposure, '--max-exposure'),
  };
  return { ...decided, actor, chosen: { filter, dryRun: Boolean(options.dryRun) } };
}

export interface FindingsHistoryRequest {
  format: ListFormat;
  selector: { findingId: string } | { period: string };
}

/** The command line of `findings history`, checked (issue 27: pure, tested in-process). */
export function parseFindingsHistory(
  options: HistoryOptions,
  findingId: string | undefined,
  at: ParseContext,
): FindingsHistoryRequest {
  const format = parseListFormat(options);
  const chosenBy = [findingId, options.period].filter((choice) => choice !== undefined);
  if (chosenBy.length !== 1) throw new UsageError('Give either a finding id or --period YYYY-MM.');
  const selector = findingId !== undefined ? { findingId } : { period: periodOption(options.period, at) };
  return { format, selector };
}

export interface FindingsListRequest {
  period: string;
  undecided?: boolean;
  format: ListFormat;
}

/** The command line of `findings list`, checked (issue 27: pure, tested in-process). */
export function parseFindingsList(options: ListOptions, at: ParseContext): FindingsListRequest {
  const period = periodOption(options.period, at);
  return { period, undecided: options.undecided, format: parseListFormat(options) };
}

export function registerFindings(program: Command): void {
  const findings = program
    .command('findings')
    .description('decisions on the findings of a period: import them from the workbook, record them, list them');
  withGlobalOptions(
    findings
      .command('import <workbook>')
      .description(
        'read the decisions typed into a pinrecon workbook (saved by Excel or LibreOffice) into the database',
      )
      .option('--by <name>', "who decided (default: the OS user name; with people configured, the key's person)")
      .option('--identity <file>', identityHelp)
      .option('--overwrite', 'record rows edited over a decision taken after the workbook was written (else refused)'),
  )
    .addHelpText(
      'after',
      `
The finding sheets (Missing, Amounts, Status, Duplicates, Cutoff, Unredeemed keys) carry the columns
Finding ID, Decision, Note, Owner and Expected clear by, then (grey, never read back) Decided by, Decided at
and Decision ref: the decision the row was written with. Sheets are found by that header row, so sheets may
be renamed, reordered or deleted, rows sorted or filtered, columns added.

Each row is recorded, unchanged (equal to the current decision, or left as written) or refused. A row
edited over a decision taken after the workbook was written is refused (run pinrecon report for a fresh
workbook, or --overwrite); so are rows naming an unknown finding, another period or an invalid decision.
The other rows are still recorded. Importing the same file twice changes nothing. A signed-off period
refuses every row: reopen it first. Exit 0 when no row was refused, 1 otherwise; --json lists every row.

The Suggested matches sheet's rows (Suggestion ID, Decision confirm | reject, Note; a reject needs a Note)
are recorded the same way: a row naming an unknown suggestion, another word, or a side already in another
confirmed match is refused with its row number, the others recorded; --json reports them under "matches".

Decisions: ${decisions.join(', ')} (timing needs an Expected clear by not in the past; write_off and
accepted need a Note). With people in the config, --identity FILE (a preparer's key) is required.

Example:
  pinrecon findings import reports/pinrecon-2026-01.xlsx --by "Ana Lima"`,
    )
    .action(
      action<ImportOptions, [string]>(async ({ config, output }, options, workbook) => {
        const { file, actor: who, overwrite } = parseFindingsImport(options, workbook);
        const actor = resolveActor(config, who, 'preparer', 'import decisions');
        const result = await withJobWarehouse(config, (warehouse) =>
          importDecisions(warehouse, file, { actor, overwrite, timezone: config.timezone }, output),
        );
        if (!actor.attested) output.info(unattestedNotice);
        report(output, result);
      }),
    );

  withGlobalOptions(
    findings
      .command('decide [findingId...]')
      .description(
        'record a decision on findings from the command line: named by id, or chosen with --period and filters',
      )
      .requiredOption('--decision <decision>', `one of ${decisions.join(', ')}`)
      .option('--note <text>', 'why (default: keep the current note)')
      .option('--owner <name>', 'who follows it up (default: keep the current owner)')
      .option('--expected-clear-by <date>', 'YYYY-MM-DD: when a timing difference should clear (needed for timing)')
      .option('--by <name>', "who decided (default: the OS user name; with people configured, the key's person)")
      .option('--identity <file>', identityHelp)
      .option('--period <YYYY-MM>', "decide the period's findings the filters choose (instead of ids)")
      .option('--type <type...>', `with --period: only these finding types (${findingTypeNames.join(', ')})`)
      .option('--family <family>', `with --period: only this family (${families.join(', ')})`)
      .option('--undecided', 'with --period: only findings without a decision')
      .option(
        '--max-amount <amount>',
        'with --period: only findings whose amount (cost bridge effect) is at most this (absolute value); ' +
          'a finding with an exposure (unredeemed key) only if --max-exposure is given too',
      )
      .option(
        '--max-exposure <amount>',
        "with --period: only findings whose exposure (a key's cost at stake) is at most this",
      )
      .option('--dry-run', 'with --period: print what would be decided, record nothing'),
  )
    .addHelpText(
      'after',
      `
A signed-off period refuses every decision (exit 1): reopen it first.

Examples:
  pinrecon findings decide 3f2a… 9b1c… --decision timing --expected-clear-by 2026-02-10 --owner ana
  pinrecon findings decide --period 2026-01 --type unredeemed_key --undecided --decision investigating \
--owner ops --dry-run`,
    )
    .action(
      action<DecideOptions, [string[]]>(async ({ config, output }, options, findingIds) => {
        const request = parseFindingsDecide(options, findingIds, { timeZone: config.timezone });
        const { actor: who, chosen, ...decided } = request;
        const actor = resolveActor(config, who, 'preparer', 'decide findings');
        const dryRun = 'dryRun' in chosen && chosen.dryRun;
        if (!actor.attested && !dryRun) output.info(unattestedNotice);
        const decide = { ...decided, actor, timezone: config.timezone };
        const result = await withJobWarehouse(config, (warehouse) =>
          'findingIds' in chosen
            ? decideFindings(warehouse, chosen.findingIds, decide)
            : decideInBulk(warehouse, chosen.filter, { ...decide, dryRun }),
        );
        report(output, result);
      }),
    );

  withGlobalOptions(
    findings
      .command('history [findingId]')
      .description(
        'who decided what, when (with the zone) and from which source: one finding, or every decision of a period',
      )
      .option('--period <YYYY-MM>', "every decision of the period (instead of one finding's)")
      .option('--format <format>', `output: ${listFormats.join(', ')} (--json means json)`, 'table'),
  ).action(
    action<HistoryOptions, [string | undefined]>(async ({ config }, options, findingId) => {
      const { format, selector } = parseFindingsHistory(options, findingId, { timeZone: config.timezone });
      const warehouse = await Warehouse.open(config.database, warehouseSettings(config));
      let rows;
      try {
        rows = await decisionHistory(warehouse, selector, config.timezone);
      } finally {
        warehouse.close();
      }
      await printRows(rows, format, '(no decisions recorded)');
    }),
  );

  withGlobalOptions(
    findings
      .command('list')
      .description("the period's findings with their current decision and state (undecided, pending, overdue, decided)")
      .requiredOption('--period <YYYY-MM>', 'the month')
      .option('--undecided', 'only the findings without a decision')
      .option('--format <format>', `output: ${listFormats.join(', ')} (--json means json)`, 'table'),
  ).action(
    action<ListOptions, []>(async ({ config }, options) => {
      const { period, undecided, format } = parseFindingsList(options, { timeZone: config.timezone });
      const warehouse = await Warehouse.open(config.database, warehouseSettings(config));
      let rows;
      try {
        rows = await listFindings(warehouse, { period, undecided });
      } finally {
        warehouse.close();
      }
      await printRows(rows, format, '(no findings)');
    }),
  );
}

/**
 * What an import or decide did; a refused row (or finding id) makes the command fail (exit 1), the others still
 * recorded. An import's Suggested matches rows (`matches`, issue 29) count as rows too.
 */
function report(output: Output, result: DecisionsResult & { matches?: { refused: unknown[] } }): void {
  const refused = result.refused.length + (result.matches?.refused.length ?? 0);
  output.result(describeDecisions(result));
  output.document({ ok: refused === 0, ...result });
  if (refused > 0) process.exitCode = 1;
}
