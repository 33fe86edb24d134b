/**
 * How the Summary sheet is written: whole rows of styled cells in six columns, with their printed height; a text
 * too wide for its room wraps across it (print-layout.ts measures it), so every text prints whole.
 */
import type ExcelJS from 'exceljs';
import { localTimeInstant, zonedTimeParts } from '../core/zoned-time.js';
import { wallClockDate } from './formats.js';
import type { Decimal } from './formats.js';
import { moneyStyle, styles, type Style } from './workbook-styles.js';
import { wrappedLines } from './print-layout.js';

/** A cell of the Summary: a value and how it looks. */
export type SummaryCell = { value: ExcelJS.CellValue; style: Style } | string | null;

/** What a Summary section writes with: whole rows, and the cells the Summary uses. */
export interface SummaryPen {
  line(...cells: SummaryCell[]): void;
  /** Text across the whole width of the Summary, wrapped: it prints whole, whatever its length. */
  note(text: string, style?: Style): void;
  /** A blank row, then the section's title. */
  heading(text: string): void;
  header(...labels: (string | null)[]): void;
  styled(value: ExcelJS.CellValue, style: Style): SummaryCell;
  count(value: string | number): SummaryCell;
  money(value: Decimal, currency: string | null): SummaryCell;
  /** A local wall-clock time as the facts give it ("YYYY-MM-DD HH:MM:SS"), shown with its UTC offset. */
  localTime(text: string | null): SummaryCell;
  /** An instant, shown as the wall clock of the configured zone with its UTC offset. */
  instant(at: Date): SummaryCell;
}

/** A: labels; B: a value or a time (with its offset); C–F: numbers. Nothing is written right of F. */
export const summaryColumnWidths = [23, 23, 14, 14, 14, 14];
/** The Summary's whole width, which a note wraps across. */
const summaryWidth = summaryColumnWidths.reduce((sum, width) => sum + width, 0);

/** The space above a section's heading, in points. */
const sectionSpacePt = 3;
export function summaryPen(
  worksheet: ExcelJS.Worksheet,
  timezone: string,
): SummaryPen & { rows(): number; heightPt(): number } {
  let rows = 0;
  // The printed height of the rows written: a row's set height, else 15 pt for each 11 pt of its largest font.
  let heightPt = 0;
  const fontHeightPt = (size: number | undefined) => (15 * Math.max(11, size ?? 11)) / 11;
  const addRow = (cells: SummaryCell[], headerLines = 1) => {
    const row = worksheet.addRow(
      cells.map((cell) => (cell === null ? undefined : typeof cell === 'string' ? cell : cell.value)),
    );
    cells.forEach((cell, i) => {
      if (cell !== null) row.getCell(i + 1).style = typeof cell === 'object' ? cell.style : styles.plain;
    });
    // Issue 30: a text wider than its room (its column and the empty ones right of it, up to F) printed cut at
    // the next cell or at the print area's edge; it wraps across that room instead, its row as tall as it needs.
    const wraps = textsTooWide(cells);
    for (const { column, span } of wraps) {
      const cell = row.getCell(column + 1);
      cell.style = { ...cell.style, alignment: { ...cell.style.alignment, wrapText: true, vertical: 'top' } };
      if (span > 1) worksheet.mergeCells(row.number, column + 1, row.number, column + span);
    }
    // Every cell of a row taller than a line at its top: a number beside a wrapped text printed a line below it.
    if (wraps.length > 0)
      cells.forEach((cell, i) => {
        if (cell === null || wraps.some((w) => w.column === i)) return;
        const at = row.getCell(i + 1);
        at.style = { ...at.style, alignment: { ...at.style.alignment, vertical: 'top' } };
      });
    const lines = Math.max(headerLines, ...wraps.map((w) => w.lines));
    if (lines > 1) row.height = 15 * lines;
    const fonts = cells.map((cell) => (cell !== null && typeof cell === 'object' ? cell.style.font?.size : undefined));
    heightPt += row.height ?? Math.max(...fonts.map(fontHeightPt));
    row.commit();
    rows = row.number;
  };
  const line = (...cells: SummaryCell[]) => addRow(cells);
  const styled = (value: ExcelJS.CellValue, style: Style): SummaryCell => ({ value, style });
  // A time cell's format carries the zone's offset at that instant, so "every time says its zone" holds in print too.
  const timeCell = (instant: Date): SummaryCell => {
    const { offset } = zonedTimeParts(instant, timezone);
    return styled(wallClockDate(instant, timezone), timeStyle(offset));
  };
  return {
    line,
    styled,
    rows: () => rows,
    heightPt: () => heightPt,
    note: (text, style = styles.plain) => {
      const row = worksheet.addRow([text]);
      row.getCell(1).style = { ...style, alignment: { wrapText: true, vertical: 'top' } };
      // The Summary's width in characters of the note's font (a larger font holds fewer).
      const width = (summaryWidth * 11) / Math.max(11, style.font?.size ?? 11);
      const lines = wrappedLines(text, width, style.font?.bold === true);
      // 15 pt a line of the 11 pt body font; a larger font (the alert band) needs proportionally more.
      if (lines > 1) row.height = Math.ceil((15 * lines * Math.max(11, style.font?.size ?? 11)) / 11);
      heightPt += row.height ?? fontHeightPt(style.font?.size);
      worksheet.mergeCells(row.number, 1, row.number, summaryColumnWidths.length);
      row.commit();
      rows = row.number;
    },
    heading: (text) => {
      // Half a line of space above a section: the Summary is meant to fit two pages.
      const spacer = worksheet.addRow([]);
      spacer.height = sectionSpacePt;
      heightPt += sectionSpacePt;
      spacer.commit();
      line(styled(text, styles.heading));
    },
    // A label wider than its column wraps onto more lines of a taller row, so it prints whole.
    header: (...labels) => {
      const lines = Math.max(...labels.map((label, i) => wrappedLines(label ?? '', summaryColumnWidths[i] ?? 1, true)));
      addRow(
        labels.map((label) =>
          label === null ? null : styled(label, lines > 1 ? styles.wrappedHeader : styles.header),
        ),
        lines,
      );
    },
    count: (value) => styled(Number(value), styles.integer),
    money: (value, currency) => (value === null ? null : styled(Number(value), moneyStyle(currency))),
    localTime: (text) => (text === null ? null : timeCell(localTimeInstant(text, timezone))),
    instant: timeCell,
  };
}

/**
 * The text cells of a row that do not fit their room — their column and the empty columns right of it, up to
 * the Summary's last (a spreadsheet prints an unwrapped text over empty neighbours, and cuts it at a filled one
 * or at the print area's edge) — with the columns to merge and wrap them over and the lines they then take.
 */
function textsTooWide(cells: SummaryCell[]): { column: number; span: number; lines: number }[] {
  const wide: { column: number; span: number; lines: number }[] = [];
  cells.forEach((cell, column) => {
    const value = cell !== null && typeof cell === 'object' ? cell.value : cell;
    if (typeof value !== 'string') return;
    let span = 1;
    while (column + span < summaryColumnWidths.length && (cells[column + span] ?? null) === null) span++;
    const room = summaryColumnWidths.slice(column, column + span).reduce((sum, width) => sum + width, 0);
    const style = cell !== null && typeof cell === 'object' ? cell.style : undefined;
    const lines = wrappedLines(value, room, style?.font?.bold === true);
    if (lines > 1) wide.push({ column, span, lines });
  });
  return wide;
}

/** One shared style per UTC offset: "yyyy-mm-dd hh:mm -03:00". */
const timeStyles = new Map<string, Style>();
function timeStyle(offset: string): Style {
  let style = timeStyles.get(offset);
  if (!style)
    timeStyles.set(offset, (style = { numFmt: `yyyy-mm-dd hh:mm "${offset}"`, alignment: { horizontal: 'left' } }));
  return style;
}
