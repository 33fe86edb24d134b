/**
 * How the workbook prints (issue 14: through LibreOffice a finding sheet printed at about 3 pt, the Summary at
 * about 5 pt, on Letter while our users print A4). Each sheet gets a fixed print scale computed here from the
 * widths of the columns that must share a page, never below `minimumTextPt` for the body font; the paper is
 * `reports.paperSize`. A text that wraps takes the lines wrappedLines counts (a spreadsheet program keeps the row
 * height an .xlsx sets, so a row too short prints its text cut).
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

/**
 * How wide a character prints, in column-width units (a unit is the width of a digit). The proportions are
 * DejaVu Sans's, the font LibreOffice prints the workbook's Calibri in where Calibri and Carlito are not
 * installed, and wider than Calibri, so what fits here fits in Excel too. Measured against LibreOffice's PDF of
 * the demo's Summary (issue 30): "20261126T234615Z-1f47ee4" (23.3) filled a column of 23, a sentence of 129
 * characters (99.9) one line of the 102.
 */
function characterUnits(character: string): number {
  if (character === ' ') return 0.5;
  if (/[il.,:;|!'`j·]/.test(character)) return 0.47;
  if (character === '_') return 0.8;
  if (/[frt()[\]\-/]/.test(character)) return 0.6;
  if (/[mwMW@%]/.test(character)) return 1.45;
  if (/[A-Z]/.test(character)) return 1.1;
  if (/[a-z]/.test(character)) return 0.95;
  return 1;
}

/** A text's printed width in column-width units; bold prints about a tenth wider. */
const textUnits = (text: string, bold: boolean) =>
  [...text].reduce((sum, character) => sum + characterUnits(character), 0) * (bold ? 1.1 : 1);

/**
 * The lines a text takes in a cell this wide, its words wrapped as a spreadsheet program wraps them (after a
 * hyphen too; a word longer than the line breaks inside it), half a unit kept for the cell's padding.
 * ceil(length / width) said 2 for "Ledger expected cost (paid)" in a column of 14, which wraps onto 3 and
 * printed without "(paid)".
 */
export function wrappedLines(text: string, width: number, bold = false): number {
  const capacity = Math.max(1, width - 0.5);
  const space = textUnits(' ', bold);
  let lines = 1;
  let used = 0;
  for (const word of text.split(/\s+/).filter((w) => w !== '')) {
    // A line may also break after a hyphen inside a word ("PO-2026-" over "0005754"), with no space there.
    for (const [i, piece] of word.split(/(?<=-)/).entries()) {
      const units = textUnits(piece, bold);
      const gap = i === 0 ? space : 0;
      if (used > 0 && used + gap + units <= capacity) {
        used += gap + units;
        continue;
      }
      if (used > 0) lines++;
      const more = Math.max(0, Math.ceil(units / capacity) - 1);
      lines += more;
      used = units - more * capacity;
    }
  }
  return lines;
}
