/**
 * The Summary's roll-forward per currency (issue 15): open findings at the previous reconciliation of the period
 * + new − cleared − written off (+ remeasured amounts) = open now, with the check that must be zero (the data
 * test sql/tests/roll_forward_adds_up.sql fails the reconcile otherwise). Read from recon_roll_forward, with the
 * write-offs decided since that reconcile counted in (sql/report/roll_forward.sql, issue 30).
 */
import type ExcelJS from 'exceljs';
import { sqlText } from '../core/paths.js';
import type { Warehouse } from '../core/warehouse.js';
import type { Decimal } from './formats.js';

export interface RollForwardLine {
  currency: string | null;
  openAtStart: number;
  openAtStartAmount: Decimal;
  new: number;
  newAmount: Decimal;
  cleared: number;
  clearedAmount: Decimal;
  writtenOff: number;
  writtenOffAmount: Decimal;
  remeasuredAmount: Decimal;
  openAtEnd: number;
  openAtEndAmount: Decimal;
  checkCount: number;
  checkAmount: Decimal;
  /** False on the period's first reconcile (nothing was open before it). */
  hasPrevious: boolean;
}

export async function loadRollForward(warehouse: Warehouse, period: string): Promise<RollForwardLine[]> {
  const rows = await warehouse.all<Record<string, string | number | boolean | null>>(
    sqlText('report', 'roll_forward.sql'),
    { period },
  );
  return rows.map((r) => ({
    currency: (r.currency_code as string | null) ?? null,
    openAtStart: Number(r.open_at_start),
    openAtStartAmount: r.open_at_start_amount as Decimal,
    new: Number(r.new),
    newAmount: r.new_amount as Decimal,
    cleared: Number(r.cleared),
    clearedAmount: r.cleared_amount as Decimal,
    writtenOff: Number(r.written_off),
    writtenOffAmount: r.written_off_amount as Decimal,
    remeasuredAmount: r.remeasured_amount as Decimal,
    openAtEnd: Number(r.open_at_end),
    openAtEndAmount: r.open_at_end_amount as Decimal,
    checkCount: Number(r.check_count),
    checkAmount: r.check_amount as Decimal,
    hasPrevious: r.has_previous === true,
  }));
}

/** What the section writes with: the Summary's pen (reports/workbook.ts), structurally. */
export interface RollForwardPen {
  line(...cells: ({ value: ExcelJS.CellValue; style: Partial<ExcelJS.Style> } | string | null)[]): void;
  heading(text: string): void;
  header(...labels: string[]): void;
  count(value: string | number): { value: ExcelJS.CellValue; style: Partial<ExcelJS.Style> } | string | null;
  money(
    value: Decimal,
    currency: string | null,
  ): { value: ExcelJS.CellValue; style: Partial<ExcelJS.Style> } | string | null;
}

/**
 * One row per measure, two columns (findings, amount) per currency, two currencies a block: the Summary prints 6
 * columns, so a currency per column pair keeps every figure on the page.
 */
export function writeRollForwardSection(pen: RollForwardPen, rollForward: RollForwardLine[]): void {
  pen.heading('Roll-forward of open findings per currency');
  // Three printed lines, not four (issue 30: the Summary keeps to two pages on Letter).
  pen.line(
    "Open: not decided write_off, from the period's previous reconciliation to this one (none open before the " +
      'first). Open at start + new − cleared − written off (+ remeasured) = open at end; a reconcile whose check ' +
      'is not 0 fails. Written off counts the decisions, also those since the reconcile. Amounts: the cost bridge ' +
      'effect, as in the decisions table (exposure apart).',
  );
  const measures: [string, (r: RollForwardLine) => [number | null, Decimal]][] = [
    ['Open at start', (r) => [r.openAtStart, r.openAtStartAmount]],
    ['New', (r) => [r.new, r.newAmount]],
    ['Cleared', (r) => [r.cleared, r.clearedAmount]],
    ['Written off', (r) => [r.writtenOff, r.writtenOffAmount]],
    ['Remeasured', (r) => [null, r.remeasuredAmount]],
    ['Open at end', (r) => [r.openAtEnd, r.openAtEndAmount]],
    ['Check (must be 0)', (r) => [r.checkCount, r.checkAmount]],
  ];
  for (let first = 0; first < rollForward.length; first += 2) {
    const block = rollForward.slice(first, first + 2);
    pen.header('Measure', ...block.flatMap((r) => [`${r.currency ?? '(none)'} findings`, 'Amount']));
    for (const [label, values] of measures) {
      pen.line(
        label,
        ...block.flatMap((r) => {
          const [count, amount] = values(r);
          return [count === null ? null : pen.count(count), pen.money(amount, r.currency)];
        }),
      );
    }
  }
}
