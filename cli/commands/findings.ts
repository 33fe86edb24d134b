/**
 * `pinrecon findings import|decide|list`: decisions on findings (interface.md "Decisions on findings").
 * Decisions are typed into the workbook's finding sheets (or given here) and outlive every re-run of reconcile.
 */
import type { Command } from 'commander';
import { decisions, isDecision } from '../../core/decisions.js';
import { UsageError } from '../../core/errors.js';
import { formatTable } from '../../core/output.js';
import { Warehouse } from '../../core/warehouse.js';
import { decideFindings, describeDecisions, importDecisions, listFindings } from '../../pipelines/findings.js';
import { action, parseDateOption, parsePeriodOption, withGlobalOptions, withJobWarehouse, type GlobalOptions } from '../context.js';
import { csvField } from './query.js';
import { printableCells, printJson, printText } from '../print.js';
import { warehouseSettings } from '../../config/warehouse-settings.js';

interface ImportOptions extends GlobalOptions {
  by?: string;
}

interface DecideOptions extends GlobalOptions {
  decision: string;
  note?: string;
  owner?: string;
  expectedClearBy?: string;
  by?: string;
}

interface ListOptions extends GlobalOptions {
  period: string;
  undecided?: boolean;
  format: string;
}

const listFormats = ['table', 'csv', 'json'] as const;

export function registerFindings(program: Command): void {
  const findings = program.command('findings').description('decisions on the findings of a period: import them from the workbook, record them, list them');
  withGlobalOptions(
    findings
      .command('import <workbook>')
      .description('read the decisions typed into a pinrecon workbook (saved by Excel or LibreOffice) into the database')
      .option('--by <name>', 'who decided (default: the OS user name)'),
  )
    .addHelpText(
      'after',
      `
The finding sheets (Missing, Amounts, Status, Duplicates, Cutoff, Unredeemed keys) carry the columns
Finding ID, Decision, Note, Owner and Expected clear by. Sheets are found by that header row, so sheets
may be renamed, reordered or deleted, rows sorted or filtered, columns added. Only rows that differ from
the current decision are recorded; importing the same file twice changes nothing. Rows naming an unknown
finding, another period or an invalid decision are listed with sheet and row, and change nothing.

Decisions: ${decisions.join(', ')} (timing needs Expected clear by).

Example:
  pinrecon findings import reports/pinrecon-2026-01.xlsx --by "Ana Lima"`,
    )
    .action(
      action<ImportOptions, [string]>(async ({ config, output }, options, file) => {
        const result = await withJobWarehouse(config, (warehouse) => importDecisions(warehouse, file, { by: options.by }, output));
        output.result(describeDecisions(result));
        output.document({ ok: true, ...result });
      }),
    );

  withGlobalOptions(
    findings
      .command('decide <findingId...>')
      .description('record a decision on one or more findings from the command line')
      .requiredOption('--decision <decision>', `one of ${decisions.join(', ')}`)
      .option('--note <text>', 'why (default: keep the current note)')
      .option('--owner <name>', 'who follows it up (default: keep the current owner)')
      .option('--expected-clear-by <date>', 'YYYY-MM-DD: when a timing difference should clear (needed for timing)')
      .option('--by <name>', 'who decided (default: the OS user name)'),
  )
    .addHelpText('after', `\nExample:\n  pinrecon findings decide 3f2a… 9b1c… --decision timing --expected-clear-by 2026-02-10 --owner ana`)
    .action(
      action<DecideOptions, [string[]]>(async ({ config, output }, options, findingIds) => {
        if (!isDecision(options.decision)) throw new UsageError(`--decision must be one of ${decisions.join(', ')}, got "${options.decision}".`);
        const expectedClearBy = parseDateOption(options.expectedClearBy, '--expected-clear-by');
        const result = await withJobWarehouse(config, (warehouse) =>
          decideFindings(warehouse, findingIds, { decision: options.decision, note: options.note, owner: options.owner, expectedClearBy, by: options.by }),
        );
        output.result(describeDecisions(result));
        output.document({ ok: result.refused.length === 0, ...result });
        // A finding id that could not be decided is a failed request, not a partial success to overlook.
        if (result.refused.length > 0) process.exitCode = 1;
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
      const period = parsePeriodOption(options.period);
      const format = options.json ? 'json' : options.format;
      if (!(listFormats as readonly string[]).includes(format)) throw new UsageError(`--format must be one of ${listFormats.join(', ')}, got "${format}".`);
      const warehouse = await Warehouse.open(config.database, warehouseSettings(config));
      let rows;
      try {
        rows = await listFindings(warehouse, { period, undecided: options.undecided });
      } finally {
        warehouse.close();
      }
      // References and notes come from files and the upstream: printed only through the printable-text rule.
      if (format === 'json') await printJson(rows, 2);
      else if (format === 'csv') {
        const columns = rows.length > 0 ? Object.keys(rows[0]!) : [];
        await printText([columns.join(','), ...rows.map((r) => Object.values(r).map(csvField).join(','))].join('\n') + '\n');
      } else {
        const table = rows.length === 0 ? '(no findings)' : formatTable(printableCells(rows as unknown as Record<string, unknown>[]));
        await printText(`${table}\n`);
      }
    }),
  );
}
