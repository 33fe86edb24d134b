/**
 * What an `actions export` writes and remembers (issue 30): the lines of its kind (claim-lines.ts,
 * journal-lines.ts) less those an earlier export of the same kind wrote (`recon_action_exports`), or all of them
 * with `--all`, each re-exported one marked with the date it was first exported; the lines are recorded under the
 * export's id before the file is written, and the totals per currency are summed by DuckDB from that record, so
 * money stays DECIMAL. The file's layout (columns, heading, print) is set here; reports/action-files.ts writes it.
 */
import type { Config } from '../../config/schema.js';
import { todayIn } from '../../core/calendar.js';
import type { Warehouse } from '../../core/warehouse.js';
import type { ActionFile, FileColumn } from '../../reports/action-files.js';
import { claimLines } from './claim-lines.js';
import { journalLines } from './journal-lines.js';

export type ExportKind = 'claim' | 'undercharge' | 'journal';

export interface PreparedExport {
  exportId: string;
  /** The export's number among the period's exports of its kind (1 = the first). */
  sequence: number;
  content: ActionFile;
  /** The actions whose lines this export covers (approved ones move to executed). */
  actions: string[];
  /** Lines exported before: left out, or with --all written again and marked. */
  exportedBefore: number;
  /** Actions with nothing to post or claim (amount 0): covered, no line. */
  empty: string[];
}

/** The export's number: one more than the period's exports of this kind so far. */
export async function nextExportSequence(warehouse: Warehouse, period: string, kind: ExportKind): Promise<number> {
  const row = await warehouse.one<{ n: number }>(
    `SELECT count(DISTINCT export_id)::INTEGER AS n FROM recon_action_exports WHERE period = $1 AND kind = $2`,
    [period, kind],
  );
  return (row?.n ?? 0) + 1;
}

/** The default file of an export: the first of a kind keeps the plain name, later ones carry their number. */
export function exportFileName(period: string, kind: ExportKind, sequence: number, format: string): string {
  const what = kind === 'claim' ? 'claims' : kind === 'undercharge' ? 'undercharges' : 'journal';
  const number = sequence > 1 ? `-${String(sequence).padStart(2, '0')}` : '';
  return `pinrecon-${period}-${what}${number}.${format}`;
}

/**
 * Reads the lines, leaves out (or, with `all`, marks) those exported before, records what will be written in
 * `recon_action_exports` and lays out the file. Run it inside the export's transaction, before writing the file.
 */
export async function prepareExport(
  warehouse: Warehouse,
  config: Config,
  options: { period: string; kind: ExportKind; all: boolean; file: string; by: string; runId: string },
): Promise<PreparedExport> {
  const { period, kind } = options;
  const found =
    kind === 'journal'
      ? await journalLines(warehouse, config, period)
      : await claimLines(warehouse, config, period, kind);
  const earlier = new Map(
    (
      await warehouse.all<{ line_id: string; first: string }>(
        `SELECT line_id, strftime(min(exported_at), '%Y-%m-%d') AS first FROM recon_action_exports
         WHERE period = $1 AND kind = $2 GROUP BY line_id`,
        [period, kind],
      )
    ).map((r) => [r.line_id, r.first]),
  );
  const rows: Record<string, string | null>[] = [];
  for (const line of found.lines) {
    const first = earlier.get(line.line_id) ?? null;
    if (first !== null && !options.all) continue;
    rows.push({ ...line, exported_before: first });
  }
  const sequence = await nextExportSequence(warehouse, period, kind);
  const exportId = `X-${period}-${kind}-${String(sequence).padStart(2, '0')}`;
  const now = new Date().toISOString();
  for (const row of rows) {
    await warehouse.run(
      `INSERT INTO recon_action_exports (export_id, period, kind, line_id, action_id, finding_id, account, debit,
         credit, amount, currency_code, repeated, file, exported_at, exported_by, run_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8::DECIMAL(18,4), $9::DECIMAL(18,4), $10::DECIMAL(18,4), $11, $12, $13,
               $14::TIMESTAMPTZ, $15, $16)`,
      [
        exportId,
        period,
        kind,
        row.line_id!,
        row.action_id!,
        row.finding_id!,
        row.account ?? null,
        row.debit ?? null,
        row.credit ?? null,
        kind === 'journal' ? null : (row.difference ?? null),
        row.currency ?? null,
        row.exported_before !== null,
        options.file,
        now,
        options.by,
        options.runId,
      ],
    );
  }
  const summed = await warehouse.all<Record<string, string | null>>(
    `SELECT currency_code AS currency, count(DISTINCT action_id)::VARCHAR AS entries,
            coalesce(sum(amount), 0)::VARCHAR AS difference,
            coalesce(sum(debit), 0)::VARCHAR AS debit, coalesce(sum(credit), 0)::VARCHAR AS credit
     FROM recon_action_exports WHERE export_id = $1 GROUP BY ALL ORDER BY 1 NULLS LAST`,
    [exportId],
  );
  // A journal's currency balances when each of its entries does: debits equal credits, summed by DuckDB.
  const balanced = new Map(
    kind !== 'journal'
      ? []
      : (
          await warehouse.all<{ currency: string | null; balanced: boolean }>(
            `SELECT currency_code AS currency, bool_and(even) AS balanced FROM (
               SELECT currency_code, action_id, coalesce(sum(debit), 0) = coalesce(sum(credit), 0) AS even
               FROM recon_action_exports WHERE export_id = $1 GROUP BY ALL)
             GROUP BY ALL`,
            [exportId],
          )
        ).map((b) => [b.currency, b.balanced]),
  );
  // A claim counts lines (one a transaction), a journal entries (two lines or more each).
  const totals = summed.map(
    (t): Record<string, string | null> =>
      kind === 'journal'
        ? {
            currency: t.currency ?? null,
            entries: t.entries ?? null,
            debit: t.debit ?? null,
            credit: t.credit ?? null,
            balanced: balanced.get(t.currency ?? null) ? 'yes' : 'NO',
          }
        : { currency: t.currency ?? null, lines: t.entries ?? null, difference: t.difference ?? null },
  );
  const exportedBefore = found.lines.filter((l) => earlier.has(l.line_id)).length;
  const content =
    kind === 'journal'
      ? journalLayout(config, period, exportId, rows, totals, options.all)
      : claimLayout(config, period, kind, exportId, rows, totals, options.all);
  return { exportId, sequence, content, actions: found.actions, exportedBefore, empty: found.empty };
}

const money = (key: string, header: string, width = 12): FileColumn => ({ key, header, kind: 'money', width });
const text = (key: string, header: string, width: number): FileColumn => ({ key, header, kind: 'text', width });

/**
 * A claim as the provider's account manager reads it: who asks whom, for what period, under which reference and
 * date, the totals per currency first, then one line per transaction. The printed columns add up to 141
 * characters, which fits A4 and Letter landscape at ≥ 8 pt; the finding's type and id stay on screen.
 */
export function claimLayout(
  config: Config,
  period: string,
  kind: 'claim' | 'undercharge',
  exportId: string,
  rows: Record<string, string | null>[],
  totals: Record<string, string | null>[],
  all: boolean,
): ActionFile {
  const reference = exportId.replace(/^X-/, kind === 'claim' ? 'CLM-' : 'UND-').replace(`-${kind}-`, '-');
  const host = URL.canParse(config.api.baseUrl) ? new URL(config.api.baseUrl).host : config.api.baseUrl;
  const provider = config.reports.providerName ?? host;
  const partner = config.reports.partnerName ?? config.api.identifier ?? '(set reports.partnerName)';
  const title =
    kind === 'claim'
      ? `Claim for credit: charged above the agreed cost, ${period}`
      : `Undercharges: charged below the agreed cost, ${period} (for information; not part of any claim)`;
  const columns: FileColumn[] = [
    text('line_id', 'Line', 14),
    { key: 'transaction_id', header: 'Transaction ID', kind: 'integer', width: 11, align: 'left' },
    text('partner_reference', 'Partner reference', 15),
    { key: 'provider_date', header: 'Date', kind: 'date', width: 11 },
    text('product', 'Product', 19),
    money('charged_cost', 'Charged'),
    money('expected_cost', 'Agreed'),
    money('difference', 'Difference'),
    { ...text('currency', 'Currency', 9), align: 'center' },
    // 11, not 9: "****RW8W" and the header wrapped in 9.
    text('key_last4', 'Key (last 4)', 11),
    text('note', 'Note', 15),
    text('exception_type', 'Finding type', 18),
    text('finding_id', 'Finding ID', 34),
    ...(all ? [{ key: 'exported_before', header: 'Exported before', kind: 'date', width: 12 } as FileColumn] : []),
  ];
  return {
    sheet: kind === 'claim' ? `Claim ${period}` : `Undercharges ${period}`,
    title,
    heading: [
      ['Partner', partner],
      ['Provider', provider],
      ['Period', period],
      [kind === 'claim' ? 'Claim reference' : 'Reference', reference],
      ['Date', todayIn(config.timezone)],
      ['Lines', String(rows.length)],
      ...(all ? ([['Note', 'lines with "Exported before" were sent in an earlier file']] as [string, string][]) : []),
    ],
    columns,
    printColumns: 11,
    paper: config.reports.paperSize,
    rows,
    totals: {
      title: kind === 'claim' ? 'Amount claimed per currency' : 'Undercharged per currency',
      columns: [
        text('currency', 'Currency', 8),
        { key: 'lines', header: 'Lines', kind: 'integer', width: 10 },
        money('difference', 'Difference'),
      ],
      rows: totals,
    },
    totalsAt: 'heading',
    csvTotals: true,
  };
}

/**
 * The journal as a generic GL import takes it (docs/DATA.md "Journal file"): one line per row with date, entry,
 * line, account, debit, credit, currency, memo and reference; a line's other side is empty, never 0. The CSV is
 * that layout alone (an import reads every line as a posting); the workbook is also the document a bookkeeper
 * files (issue 30): a heading (whose books, period, export id, date, entries and lines, whether every entry
 * balances) and debit and credit per currency above the lines. The printed columns add up to 141 characters, as
 * the claim's, which fits A4 and Letter landscape at >= 8 pt; the finding's id stays on screen.
 */
export function journalLayout(
  config: Config,
  period: string,
  exportId: string,
  rows: Record<string, string | null>[],
  totals: Record<string, string | null>[],
  all: boolean,
): ActionFile {
  const partner = config.reports.partnerName ?? config.api.identifier ?? '(set reports.partnerName)';
  const unbalanced = totals.filter((t) => t.balanced !== 'yes').map((t) => t.currency ?? '(none)');
  const entries = new Set(rows.map((r) => r.entry_id)).size;
  // A currency fix is one entry with lines in two currencies: the totals below count it in each.
  const inTwo = totals.reduce((sum, t) => sum + Number(t.entries ?? 0), 0) > entries;
  return {
    sheet: `Journal ${period}`,
    title: `Journal entries from the reconciliation, ${period}`,
    heading: [
      ['Books of', partner],
      ['Period', period],
      ['Export', exportId],
      ['Date', todayIn(config.timezone)],
      [
        'Entries',
        `${entries} (${rows.length} lines)${inTwo ? '; a currency fix counts in both its currencies below' : ''}`,
      ],
      [
        'Balanced',
        unbalanced.length === 0
          ? 'yes: in every entry the debits equal the credits, in its currency'
          : `NO: an entry does not balance in ${unbalanced.join(', ')}; do not post this file`,
      ],
      ...(all ? ([['Note', 'lines with "exported_before" were sent in an earlier file']] as [string, string][]) : []),
    ],
    columns: [
      { key: 'date', header: 'date', kind: 'date', width: 11 },
      text('entry_id', 'entry_id', 14),
      text('line_id', 'line_id', 16),
      text('account', 'account', 10),
      money('debit', 'debit'),
      money('credit', 'credit'),
      // 10, not 8: the bold header printed "currenc" over "y".
      { ...text('currency', 'currency', 10), align: 'center' },
      text('memo', 'memo', 40),
      text('reference', 'reference', 16),
      text('finding_id', 'finding_id', 34),
      ...(all ? [{ key: 'exported_before', header: 'exported_before', kind: 'date', width: 12 } as FileColumn] : []),
    ],
    printColumns: 9,
    paper: config.reports.paperSize,
    rows,
    totals: {
      title: 'Debit and credit per currency',
      // Under the lines' first columns: the money in the wide ones (B 14, C 16), not in account's 10.
      columns: [
        text('currency', 'currency', 10),
        money('debit', 'debit'),
        money('credit', 'credit'),
        { key: 'entries', header: 'entries', kind: 'integer', width: 10 },
        { ...text('balanced', 'balanced', 10), align: 'center' },
      ],
      rows: totals,
    },
    totalsAt: 'heading',
    // A ledger imports the CSV line by line: a heading or totals block would read as more entries.
    csvTotals: false,
  };
}
