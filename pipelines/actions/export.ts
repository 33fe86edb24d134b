/**
 * `actions export --kind claim|journal`: the approved claims as a list to send the provider, or the approved
 * journal entries (fix_ledger, write_off) for the ledger, as xlsx or csv (reports/action-files.ts). What was
 * approved moves to `executed` (exported), with the file in its event; exporting again gives the same rows.
 * Money stays DECIMAL: totals are summed by DuckDB, and every journal entry's two lines carry one amount.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../../config/schema.js';
import { periodEnd } from '../../core/calendar.js';
import { UsageError } from '../../core/errors.js';
import { maskedLast4Sql, maskPinSql, textMask } from '../../core/masking.js';
import { sqlString } from '../../core/sql.js';
import type { Warehouse } from '../../core/warehouse.js';
import { writeActionFile, type ActionFile, type FileColumn } from '../../reports/action-files.js';
import { recordRun } from '../../core/run-trace.js';
import { changeStatus, checkPeriod } from './store.js';

export type ExportKind = 'claim' | 'journal';
export type ExportFileFormat = 'xlsx' | 'csv';

export interface ActionExportSummary {
  runId: string;
  period: string;
  kind: ExportKind;
  file: string;
  /** Claims, or journal entries (each of two lines). */
  entries: number;
  lines: number;
  totals: Record<string, string | null>[];
  /** Actions of this kind still proposed: not exported until approved. */
  unapproved: number;
  /** Approved actions that this export moved to executed. */
  markedExecuted: number;
}

export async function exportActions(
  warehouse: Warehouse,
  config: Config,
  options: { period: string; kind: ExportKind; format?: ExportFileFormat; out?: string; by: string },
): Promise<ActionExportSummary> {
  const period = checkPeriod(options.period);
  const format = options.format ?? (options.out?.toLowerCase().endsWith('.csv') ? 'csv' : 'xlsx');
  if (!['xlsx', 'csv'].includes(format)) throw new UsageError(`--format must be xlsx or csv, got "${format}".`);
  const name = `pinrecon-${period}-${options.kind === 'claim' ? 'claims' : 'journal'}.${format}`;
  const file = options.out ?? path.join(config.reports.outDir, name);
  return recordRun(warehouse, 'actions export', { period, kind: options.kind, format, file }, async (run) => {
    const kindName = options.kind === 'claim' ? 'claim' : 'journal';
    const content =
      options.kind === 'claim'
        ? await claimFile(warehouse, config, period)
        : await journalFile(warehouse, config, period);
    mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
    await writeActionFile(file, format, content);
    const approved = await warehouse.all<{ action_id: string }>(
      `SELECT action_id FROM recon_actions WHERE period = $1 AND kind = $2 AND status = 'approved' ORDER BY action_id`,
      [period, kindName],
    );
    await warehouse.transaction(async () => {
      for (const { action_id } of approved) {
        const fields = { executed_at: new Date().toISOString() };
        await changeStatus(warehouse, action_id, 'approved', 'executed', options.by, `exported to ${file}`, fields);
      }
    });
    const unapproved = (await warehouse.one<{ n: number }>(
      `SELECT count(*)::INTEGER AS n FROM recon_actions WHERE period = $1 AND kind = $2 AND status = 'proposed'`,
      [period, kindName],
    ))!.n;
    const entries = new Set(content.rows.map((r) => r.entry_id ?? r.action_id)).size;
    run.counters.rowsLoaded = content.rows.length;
    run.details = { file, entries, lines: content.rows.length, unapproved };
    return {
      runId: run.runId,
      period,
      kind: options.kind,
      file,
      entries,
      lines: content.rows.length,
      totals: content.totals.rows,
      unapproved,
      markedExecuted: approved.length,
    };
  });
}

const money = (key: string, header: string): FileColumn => ({ key, header, kind: 'money', width: 15 });
const text = (key: string, header: string, width = 18): FileColumn => ({ key, header, kind: 'text', width });

/** Approved or already exported actions of a kind. */
const exportable = `a.status IN ('approved', 'executed')`;

async function claimFile(warehouse: Warehouse, config: Config, period: string): Promise<ActionFile> {
  const tz = sqlString(config.timezone);
  const rows = await warehouse.all<Record<string, string | null>>(
    `SELECT a.action_id, a.transaction_id::VARCHAR AS transaction_id, a.partner_reference,
            strftime(timezone(${tz}, coalesce(e.transaction_at, s.transaction_at)), '%Y-%m-%d %H:%M:%S') AS provider_date,
            concat_ws(' ', coalesce(e.product_id, s.product_id)::VARCHAR, s.product_name) AS product,
            e.provider_value::VARCHAR AS charged_cost, e.ledger_value::VARCHAR AS expected_cost, a.amount::VARCHAR AS difference,
            a.currency_code AS currency,
            coalesce(${maskedLast4Sql('e.key_last4', textMask)}, ${maskPinSql('s.key', textMask)}) AS key_last4,
            a.note, a.exception_type, a.finding_id
     FROM recon_actions a
     LEFT JOIN recon_exceptions e ON e.finding_id = a.finding_id AND e.period = a.period
     LEFT JOIN sales s ON s.transaction_id = a.transaction_id
     WHERE a.period = $1 AND a.kind = 'claim' AND ${exportable}
     ORDER BY a.currency_code NULLS LAST, a.action_id`,
    [period],
  );
  const totals = await warehouse.all<Record<string, string | null>>(
    `SELECT a.currency_code AS currency, count(*)::VARCHAR AS claims, sum(a.amount)::VARCHAR AS difference
     FROM recon_actions a WHERE a.period = $1 AND a.kind = 'claim' AND ${exportable}
     GROUP BY ALL ORDER BY 1 NULLS LAST`,
    [period],
  );
  return {
    sheet: `Claims ${period}`,
    columns: [
      { key: 'transaction_id', header: 'transactionId', kind: 'integer', width: 14 },
      text('partner_reference', 'partnerReference', 22),
      text('provider_date', 'Provider date', 20),
      text('product', 'Product', 30),
      money('charged_cost', 'Charged cost'),
      money('expected_cost', 'Expected cost'),
      money('difference', 'Difference'),
      text('currency', 'Currency', 9),
      text('key_last4', 'Key (last 4)', 12),
      text('note', 'Note', 40),
      text('exception_type', 'Finding type', 22),
      text('action_id', 'Action', 18),
      text('finding_id', 'Finding ID', 34),
    ],
    rows,
    totals: {
      title: 'Total per currency',
      columns: [
        text('currency', 'Currency', 9),
        { key: 'claims', header: 'Claims', kind: 'integer', width: 10 },
        money('difference', 'Difference'),
      ],
      rows: totals,
    },
    csvTotals: true,
  };
}

/**
 * Journal lines: each action is one entry of two lines with the same amount, debit on one account and credit
 * on the other (journal.accounts by finding type and decision); a negative difference (a gain) swaps them.
 */
async function journalFile(warehouse: Warehouse, config: Config, period: string): Promise<ActionFile> {
  const actions = await warehouse.all<Record<string, string | null>>(
    `SELECT a.action_id, a.finding_id, a.exception_type, a.decision, a.partner_reference, a.transaction_id::VARCHAR AS transaction_id,
            a.amount::VARCHAR AS amount, a.currency_code, a.note, coalesce(e.difference, e.amount) < 0 AS gain
     FROM recon_actions a LEFT JOIN recon_exceptions e ON e.finding_id = a.finding_id AND e.period = a.period
     WHERE a.period = $1 AND a.kind = 'journal' AND ${exportable}
     ORDER BY a.currency_code NULLS LAST, a.action_id`,
    [period],
  );
  const date = periodEnd(period);
  const rows: Record<string, string | null>[] = [];
  for (const a of actions) {
    const accounts = accountsFor(config, a.exception_type ?? '', a.decision ?? '');
    const [debit, credit]: string[] =
      String(a.gain) === 'true' ? [accounts.credit, accounts.debit] : [accounts.debit, accounts.credit];
    const transaction = a.transaction_id ? `tx ${a.transaction_id}` : null;
    const memo = [a.decision, a.exception_type, a.partner_reference, transaction, a.note].filter(Boolean).join(' · ');
    const base = {
      date,
      entry_id: a.action_id ?? null,
      currency: a.currency_code ?? null,
      memo,
      finding_id: a.finding_id ?? null,
    };
    const amount = a.amount ?? null;
    rows.push({ ...base, account: debit!, debit: amount, credit: '0.0000' });
    rows.push({ ...base, account: credit!, debit: '0.0000', credit: amount });
  }
  const totals = await warehouse.all<Record<string, string | null>>(
    `SELECT currency_code AS currency, count(*)::VARCHAR AS entries, sum(amount)::VARCHAR AS debit, sum(amount)::VARCHAR AS credit
     FROM recon_actions a WHERE period = $1 AND kind = 'journal' AND ${exportable} GROUP BY ALL ORDER BY 1 NULLS LAST`,
    [period],
  );
  return {
    sheet: `Journal ${period}`,
    columns: [
      { key: 'date', header: 'date', kind: 'date', width: 12 },
      text('entry_id', 'entry_id', 18),
      text('account', 'account', 12),
      money('debit', 'debit'),
      money('credit', 'credit'),
      text('currency', 'currency', 9),
      text('memo', 'memo', 60),
      text('finding_id', 'finding_id', 34),
    ],
    rows,
    totals: {
      title: 'Total per currency',
      columns: [
        text('currency', 'currency', 9),
        { key: 'entries', header: 'entries', kind: 'integer', width: 10 },
        money('debit', 'debit'),
        money('credit', 'credit'),
      ],
      rows: totals,
    },
    // A ledger imports the CSV line by line: a totals block would read as more entries.
    csvTotals: false,
  };
}

/** The most specific of journal.accounts: type:decision, then type, then decision, then default. */
export function accountsFor(config: Config, findingType: string, decision: string): { debit: string; credit: string } {
  const accounts = config.journal.accounts;
  return accounts[`${findingType}:${decision}`] ?? accounts[findingType] ?? accounts[decision] ?? accounts.default!;
}
