/**
 * How the workbook's sheets print: paper, orientation and scale, a footer on every page, and for a finding
 * sheet the key columns repeated on every page (reports/print-layout.ts has the paper sizes and the scale).
 */
import type ExcelJS from 'exceljs';
import { describeClose } from './close-facts.js';
import {
  columnWidthPt,
  headerFooterText as footerText,
  minimumScale,
  papers,
  printableWidthPt,
  printMargins,
  printScale,
  type PaperSize,
} from './print-layout.js';
import type { ReportFacts } from './report-facts.js';
import type { DetailSheet } from './sheet-spec.js';
import { summaryColumnWidths } from './summary-pen.js';
import { columnLetters } from './xlsx-sheet-writer.js';

export type SheetPrint = Pick<Partial<ExcelJS.AddWorksheetOptions>, 'pageSetup' | 'headerFooter'>;

export interface PrintSetup {
  paper: PaperSize;
  summary: SheetPrint;
  detail(sheet: DetailSheet): SheetPrint;
}

/**
 * How each sheet prints on `paper` (reports/print-layout.ts), with a footer giving the period, the as-of, the
 * time zone, the verdict and sign-off state (the one state of close-facts.ts) and the page number:
 * - the Summary portrait, at the scale its columns fit across the page (it is laid out for at most 2 pages);
 * - a finding sheet landscape, its key columns on every page (the leading ones repeated at the left, the
 *   decision ones as the print area) at the scale they fit across; the rest of its columns stay on screen;
 * - any other sheet landscape, one page wide, its first row repeated on each page.
 */
export function printSetup(facts: ReportFacts, paper: PaperSize): PrintSetup {
  const headerFooter = {
    // Every printed page says the zone its dates and times are in (the time cells of a detail sheet cannot). One
    // section, two lines (issue 30 item 6): LibreOffice laid the left, centre and right sections over each other,
    // and the sign-off state in the centre was unreadable.
    oddFooter:
      `&L${footerText(`pinrecon ${facts.period} · as of ${facts.asOf} · times in ${facts.timezone} · page `)}` +
      '&P of &N' +
      `\n${footerText(describeClose(facts.close).footer)}`,
  };
  const common = { paperSize: papers[paper].excelCode, margins: printMargins, horizontalCentered: false };
  return {
    paper,
    summary: {
      pageSetup: {
        ...common,
        orientation: 'portrait',
        fitToPage: false,
        scale: printScale(summaryColumnWidths, paper, 'portrait'),
      },
      headerFooter,
    },
    detail: (sheet) => {
      const keys = printColumnsOf(sheet);
      if (!keys)
        return {
          // Issue 30 item 6: a fixed scale from its widths, never "fit to one page wide" (the Sales sheet printed at
          // about 5 pt, the Actions sheet at 3.4 pt); only a sheet that fits at 8 pt or more comes here.
          pageSetup: {
            ...common,
            orientation: 'landscape',
            fitToPage: false,
            scale: printScale(
              sheet.columns.map((column) => column.width),
              paper,
              'landscape',
            ),
            printTitlesRow: '1:1',
          },
          headerFooter,
        };
      const widths = sheet.columns.filter((column) => keys.includes(column.key)).map((column) => column.width);
      const leading = keyLeading(sheet, keys);
      const left = sheet.columns.length - keys.length;
      return {
        pageSetup: {
          ...common,
          orientation: 'landscape',
          fitToPage: false,
          scale: printScale(widths, paper, 'landscape'),
          printTitlesRow: '1:1',
          ...(leading > 0 ? { printTitlesColumn: `${columnLetters(1)}:${columnLetters(leading)}` } : {}),
        },
        // The page says what it leaves out (issue 30 item 6): a reader of the paper knows the rest exists.
        headerFooter: {
          ...headerFooter,
          oddHeader: `&L${footerText(
            `${sheet.title}: ${keys.length} of ${sheet.columns.length} columns printed; ` +
              `the other ${left} are in the workbook, on screen`,
          )}`,
        },
      };
    },
  };
}

/**
 * The columns a sheet prints when not all of them: its `printColumns`, else — when its columns would print under
 * `minimumTextPt` even on the narrowest paper — the leading ones that fit there (undefined: all of them fit).
 */
export function printColumnsOf(sheet: DetailSheet): string[] | undefined {
  // A family's optional column (Proof) is among its keys only on the sheets that have it.
  if (sheet.printColumns) return sheet.printColumns.filter((key) => sheet.columns.some((c) => c.key === key));
  const room = Math.min(...Object.keys(papers).map((p) => printableWidthPt(p as PaperSize, 'landscape')));
  // As printScale rounds: a whole percent, one below the exact fit.
  const widest = room / ((minimumScale + 1) / 100);
  let used = 0;
  const fits = sheet.columns.filter((column) => (used += columnWidthPt(column.width)) <= widest);
  return fits.length === sheet.columns.length ? undefined : fits.map((column) => column.key);
}

/**
 * The print area of a sheet that prints some of its columns: its key columns after the leading ones (or the
 * leading ones, when they are all), over every row written.
 */
export function printArea(sheet: DetailSheet, rows: number): string | undefined {
  const keys = printColumnsOf(sheet);
  if (!keys) return undefined;
  const leading = keyLeading(sheet, keys);
  // Only leading columns: they are the print area, nothing to repeat at the left.
  if (onlyLeading(sheet, keys)) return `${columnLetters(1)}$1:${columnLetters(keys.length)}$${rows + 1}`;
  const area = sheet.columns
    .map((column, i) => ({ key: column.key, at: i + 1 }))
    .filter((c, i) => i >= leading && keys.includes(c.key));
  if (area.length === 0) return undefined;
  const first = area[0]!.at;
  const last = area[area.length - 1]!.at;
  if (last - first + 1 !== area.length)
    throw new RangeError(`the print columns of ${sheet.title} after the leading ones must be adjacent`);
  // exceljs puts `$` before the columns only; the rows are made absolute here (a relative one would move with the
  // cursor).
  return `${columnLetters(first)}$1:${columnLetters(last)}$${rows + 1}`;
}

/**
 * How many key columns lead the sheet, to repeat at the left of every page; 0 when there are none, or when the keys
 * are all leading ones (then they are the print area itself).
 */
function keyLeading(sheet: DetailSheet, keys: string[]): number {
  const leading = sheet.columns.findIndex((column) => !keys.includes(column.key));
  return leading === keys.length ? 0 : Math.max(leading, 0);
}

/** Whether the keys are the sheet's first columns and no others. */
function onlyLeading(sheet: DetailSheet, keys: string[]): boolean {
  return sheet.columns.slice(0, keys.length).every((column) => keys.includes(column.key));
}
