/**
 * What the month carries forward (issue 30): the "Carried forward" sheet of a period's workbook — every open
 * finding of an earlier period (recon_carried_forward) with its period, type, reference, amount and exposure apart,
 * decision, owner, age since first detected and overdue state — and the counts the Summary and the email give.
 * Its decision column is not headed "Decision": it is read here, decided in the finding's own period's workbook.
 */
import type { Warehouse } from '../core/warehouse.js';
import { sqlString } from '../core/sql.js';
import type { Decimal } from './formats.js';
import { datetime, type DetailSheet, integer, money, text } from './sheet-spec.js';
import type { SummaryPen } from './summary-pen.js';

export function carriedForwardSheet(period: string): DetailSheet {
  return {
    title: 'Carried forward',
    description: "earlier periods' open findings; decide them in their own period's workbook",
    // Currency first and off the printout (its money cells carry their symbol), so the print area is the run of
    // columns after it (reports/print-setup.ts): the spec's nine print across the page at >= 8 pt.
    // Width 10, not 9: exceljs writes no <col> for its default width 9, so the first column had no set width.
    columns: [
      text('currency', 'Currency', 10, 'currency_code'),
      text('from_period', 'From period', 11),
      text('exception_type', 'Finding type', 20),
      text('partner_reference', 'Partner reference', 18),
      money('amount', 'Amount', 'amount', 'currency', 13),
      money('exposure', 'Exposure', 'exposure', 'currency', 13),
      text('current_decision', 'Current decision', 14, "coalesce(decision, 'undecided')"),
      text('owner', 'Owner', 14),
      integer('age_days', 'Age (days)', 10),
      text('overdue', 'Overdue', 9, "CASE WHEN overdue THEN 'OVERDUE' ELSE '' END"),
      { key: 'expected_clear_by', header: 'Clear by', kind: 'date', sql: 'expected_clear_by', width: 11 },
      datetime('first_detected_at', 'First detected'),
      text('of_finding', 'Of finding', 33, 'finding_id'),
    ],
    table: 'recon_carried_forward',
    where: `period = ${sqlString(period)}`,
    orderBy: 'overdue DESC, from_period, exception_type, partner_reference NULLS LAST, finding_id',
    printColumns: [
      'from_period',
      'exception_type',
      'partner_reference',
      'amount',
      'exposure',
      'current_decision',
      'owner',
      'age_days',
      'overdue',
    ],
  };
}

/** Per currency, what earlier periods left open: counts, overdue, undecided, amount and exposure apart. */
export interface CarriedForwardLine {
  currency: string | null;
  findings: number;
  overdue: number;
  undecided: number;
  amount: Decimal;
  exposure: Decimal;
  /** The earliest period any of them is from. */
  oldestPeriod: string;
}

export async function loadCarriedForward(warehouse: Warehouse, period: string): Promise<CarriedForwardLine[]> {
  const rows = await warehouse.all<Record<string, string | number | null>>(
    `SELECT currency_code, count(*)::INTEGER AS findings, count(*) FILTER (WHERE overdue)::INTEGER AS overdue,
            count(*) FILTER (WHERE decision IS NULL)::INTEGER AS undecided, sum(amount)::VARCHAR AS amount,
            coalesce(sum(exposure), 0)::VARCHAR AS exposure, min(from_period) AS oldest
     FROM recon_carried_forward WHERE period = $1 GROUP BY ALL ORDER BY currency_code NULLS LAST`,
    [period],
  );
  return rows.map((r) => ({
    currency: (r.currency_code as string | null) ?? null,
    findings: Number(r.findings),
    overdue: Number(r.overdue),
    undecided: Number(r.undecided),
    amount: r.amount as Decimal,
    exposure: r.exposure as Decimal,
    oldestPeriod: String(r.oldest),
  }));
}

/** The Summary's count of what earlier periods left open, per currency (the sheet lists them). */
export function writeCarriedForwardSection(pen: SummaryPen, lines: CarriedForwardLine[]): void {
  pen.heading('Carried forward from earlier periods');
  if (lines.length === 0) {
    pen.line('Nothing: no finding of an earlier period is open.');
    return;
  }
  pen.note(
    'Open findings of earlier periods (not cleared, not written off or accepted), on the Carried forward sheet. ' +
      'Amount: the cost bridge effect; exposure: unredeemed keys’ cost at stake, apart.',
  );
  pen.header('Currency', 'Findings', 'Overdue', 'Undecided', 'Amount', 'Exposure');
  for (const l of lines) {
    pen.line(
      `${l.currency ?? '(none)'} (from ${l.oldestPeriod})`,
      pen.count(l.findings),
      pen.count(l.overdue),
      pen.count(l.undecided),
      pen.money(l.amount, l.currency),
      pen.money(l.exposure, l.currency),
    );
  }
}
