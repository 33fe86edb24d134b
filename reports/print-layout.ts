/**
 * How the workbook prints (issue 14: through LibreOffice a finding sheet printed at about 3 pt, the Summary at
 * about 5 pt, on Letter while our users print A4). Each sheet gets a fixed print scale computed here from the
 * widths of the columns that must share a page, never below `minimumTextPt` for the body font; the paper is
 * `reports.paperSize`.
 */

export type PaperSize = 'A4' | 'letter';

/** Excel's paperSize codes and the paper in points (portrait). */
export const papers: Record<PaperSize, { excelCode: number; widthPt: number; heightPt: number }> = {
  A4: { excelCode: 9, widthPt: 595.28, heightPt: 841.89 },
  letter: { excelCode: 1, widthPt: 612, heightPt: 792 },
};

/** Text for a page header or footer: `&` starts a code there (`&P` the page number), so a text's own is doubled. */
export const headerFooterText = (text: string) => text.replaceAll('&', '&&');

/** Page margins in inches (exceljs's unit): narrow at the sides, room for the footer at the bottom. */
export const printMargins = { left: 0.3, right: 0.3, top: 0.5, bottom: 0.6, header: 0.25, footer: 0.25 };

/** The workbook's body font (exceljs's default, Calibri 11) and the smallest text a controller should read. */
export const bodyFontPt = 11;
export const minimumTextPt = 8;
/** Calibri 11 as LibreOffice sets it in a PDF (the body and the page footer), measured from its output. */
const printedBodyFontPt = 10.95;
/** The smallest print scale (percent) that keeps body text at `minimumTextPt`. */
export const minimumScale = Math.ceil((minimumTextPt / printedBodyFontPt) * 100);

/**
 * A column's printed width in points, as LibreOffice prints an .xlsx width (characters): 7 pt a character,
 * measured from its PDF (test/cli/workbook-print.test.ts). Excel prints the same width narrower (7 px of
 * Calibri 11 plus 5 px of padding, at 96 px an inch), so a layout that fits LibreOffice fits Excel.
 */
export function columnWidthPt(width: number): number {
  return width * 7;
}

export function printableWidthPt(paper: PaperSize, orientation: 'portrait' | 'landscape'): number {
  const { widthPt, heightPt } = papers[paper];
  return (orientation === 'portrait' ? widthPt : heightPt) - (printMargins.left + printMargins.right) * 72;
}

export function printableHeightPt(paper: PaperSize, orientation: 'portrait' | 'landscape'): number {
  const { widthPt, heightPt } = papers[paper];
  return (orientation === 'portrait' ? heightPt : widthPt) - (printMargins.top + printMargins.bottom) * 72;
}

/**
 * The largest whole-percent scale (at most 100) at which columns of these widths fit across the page, with a
 * little room for rounding in the spreadsheet program. Throws when that would print below `minimumTextPt`:
 * a layout change that makes the page unreadable must fail its tests, not print small.
 */
export function printScale(widths: number[], paper: PaperSize, orientation: 'portrait' | 'landscape'): number {
  const total = widths.reduce((sum, width) => sum + columnWidthPt(width), 0);
  const scale = Math.min(100, Math.floor((printableWidthPt(paper, orientation) / total) * 100) - 1);
  if (scale < minimumScale) {
    throw new RangeError(
      `columns of ${total.toFixed(0)} pt print at ${scale}% on ${paper} ${orientation}: below ${minimumTextPt} pt ` +
        `text (${minimumScale}%)`,
    );
  }
  return scale;
}

/**
 * `scale`, lowered as far as `minimumScale` so rows of `contentHeightPt` print on `pages` pages (rows do not split
 * across pages: each page keeps a row's worth of room). Content that still does not fit prints on more pages,
 * never smaller than `minimumTextPt`.
 */
export function scaleToFitPages(
  scale: number,
  contentHeightPt: number,
  pages: number,
  paper: PaperSize,
  orientation: 'portrait' | 'landscape',
): number {
  const usable = pages * (printableHeightPt(paper, orientation) - pageBreakSlackPt);
  const fits = Math.floor((usable / contentHeightPt) * 100);
  return Math.max(minimumScale, Math.min(scale, fits));
}

/** The room a page break can leave unused: a tall wrapped row that moves to the next page whole. */
const pageBreakSlackPt = 45;
