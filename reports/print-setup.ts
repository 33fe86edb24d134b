/**
 * How the workbook's sheets print: paper, orientation and scale, a footer on every page, and for a finding
 * sheet the key columns repeated on every page (reports/print-layout.ts has the paper sizes and the scale).
 */
import type ExcelJS from 'exceljs';
import { describeClose } from './close-facts.js';
import { papers, printMargins, printScale, type PaperSize } from './print-layout.js';
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
  const footerText = (text: string) => text.replaceAll('&', '&&');
  const headerFooter = {
    // Every printed page says the zone its dates and times are in (the time cells of a detail sheet cannot).
    oddFooter: `&L${footerText(`pinrecon ${facts.period} · as of ${facts.asOf} · times in ${facts.timezone}`)}&C${footerText(describeClose(facts.close).footer)}&RPage &P of &N`,
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
      const keys = sheet.printColumns;
      if (!keys)
        return {
          pageSetup: {
            ...common,
            orientation: 'landscape',
            fitToPage: true,
            fitToWidth: 1,
            fitToHeight: 0,
            printTitlesRow: '1:1',
          },
          headerFooter,
        };
      const widths = sheet.columns.filter((column) => keys.includes(column.key)).map((column) => column.width);
      const leading = sheet.columns.findIndex((column) => !keys.includes(column.key));
      return {
        pageSetup: {
          ...common,
          orientation: 'landscape',
          fitToPage: false,
          scale: printScale(widths, paper, 'landscape'),
          printTitlesRow: '1:1',
          ...(leading > 0 ? { printTitlesColumn: `${columnLetters(1)}:${columnLetters(leading)}` } : {}),
        },
        headerFooter,
      };
    },
  };
}

/** The print area of a finding sheet: its key columns after the leading ones, over every row written. */
export function printArea(sheet: DetailSheet, rows: number): string | undefined {
  const keys = sheet.printColumns;
  if (!keys) return undefined;
  const leading = sheet.columns.findIndex((column) => !keys.includes(column.key));
  const area = sheet.columns
    .map((column, i) => ({ key: column.key, at: i + 1 }))
    .filter((c, i) => i >= leading && keys.includes(c.key));
  if (area.length === 0) return undefined;
  const first = area[0]!.at;
  const last = area[area.length - 1]!.at;
  if (last - first + 1 !== area.length)
    throw new RangeError(`the print columns of ${sheet.title} after the leading ones must be adjacent`);
  // exceljs puts `$` before the columns only; the rows are made absolute here (a relative one would move with the cursor).
  return `${columnLetters(first)}$1:${columnLetters(last)}$${rows + 1}`;
}
