/**
 * The lean SpreadsheetML writer for the detail sheets' data rows: each row becomes `<row>` XML directly (inline
 * strings, styles by id) in the worksheet part of exceljs's zip; exceljs keeps everything around the rows. Only
 * the per-cell work moves here: exceljs's row objects cost ~45 s per million 13-column rows, this a few. Text is
 * stripped of characters XML cannot hold, escaped, and cut to Excel's 32,767 characters.
 */
import type ExcelJS from 'exceljs';
import type { SheetColumn } from './sheet-spec.js';
import { fitCell, maxCellCharacters } from '../core/text-safety.js';

/** A cell style as exceljs takes it; the writer asks the workbook for its shared id. */
export type CellStyle = Partial<ExcelJS.Style>;

/**
 * One column's values of a chunk of rows by row index: DuckDB's column vector, read where it lies (a row's
 * values made into an array of JavaScript values first cost more than the XML made of them).
 */
export interface ColumnValues {
  getItem(index: number): unknown;
}

/** How a column's cells look: a fixed style, or (money) one chosen by the row's currency. */
export interface ColumnStyles {
  fixed(column: SheetColumn): CellStyle;
  money(currency: string | null): CellStyle;
}

/** Characters XML 1.0 cannot carry (controls other than tab/newline/return, lone surrogates, U+FFFE/U+FFFF). */
const invalidXmlChars = /[^\t\n\r\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;
/** Excel reads `_xHHHH_` in a string as an escaped character: its underscore is escaped to keep the text. */
const excelEscapeLike = /_(x[0-9A-Fa-f]{4}_)/g;
const xmlEntities: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };

/** A character V8 cannot hold in a one-byte string. */
const beyondLatin1 = /[^\x00-\xFF]/;

/** Anything that needs more than copying: a character to escape or strip, `_xHHHH_`, a surrogate, edge whitespace. */
const needsWork = /[^\x20-\x21\x23-\x25\x27-\x3B\x3D\x3F-\uD7FF\uE000-\uFFFD]|_x[0-9A-Fa-f]{4}_|^\s|\s$/;

/** Text as the content of an inline string's `<t>`, with the attribute that keeps edge whitespace. */
export function inlineStringXml(text: string): string {
  // Most cells (references, names, statuses) are plain: no regex replacing for them.
  if (text.length <= maxCellCharacters && !needsWork.test(text)) return `<is><t>${text}</t></is>`;
  const clean = fitCell(text.replace(invalidXmlChars, ''));
  const escaped = clean.replace(excelEscapeLike, '_x005F_$1').replace(/[&<>"]/g, (c) => xmlEntities[c]!);
  const preserve = /^\s|\s$/.test(clean) ? ' xml:space="preserve"' : '';
  return `<is><t${preserve}>${escaped}</t></is>`;
}

/** "A", "B", … "Z", "AA"…: a column's letters from its 1-based number. */
export function columnLetters(column: number): string {
  let letters = '';
  for (let n = column; n > 0; n = Math.floor((n - 1) / 26))
    letters = String.fromCharCode(65 + ((n - 1) % 26)) + letters;
  return letters;
}

/**
 * Turns rows of a detail sheet's values (numbers, Excel serial dates, booleans, text, nulls: the forms
 * workbook.ts selects) into `<row>` XML. `styleId` gives a style's shared id in the workbook's styles.
 */
export class SheetRowsXml {
  private readonly letters: string[];
  private readonly fixedIds: (number | undefined)[];
  private readonly currencyIndex: number[];
  /** Per column, the fixed parts of its cells around the row number. */
  private readonly cellOpen: string[];
  private readonly isText: boolean[];
  private readonly textRest: string[];
  private readonly trueRest: string[];
  private readonly falseRest: string[];
  private readonly numberRest: (string | undefined)[];
  private readonly moneyIds = new Map<string, number>();
  private pending = Buffer.allocUnsafe(1 << 20);
  private used = 0;

  constructor(
    columns: SheetColumn[],
    private readonly styles: ColumnStyles,
    private readonly styleId: (style: CellStyle) => number,
  ) {
    this.letters = columns.map((_, i) => columnLetters(i + 1));
    this.fixedIds = columns.map((column) => (column.kind === 'money' ? undefined : styleId(styles.fixed(column))));
    this.currencyIndex = columns.map((column) =>
      column.currency ? columns.findIndex((c) => c.key === column.currency) : -1,
    );
    this.cellOpen = this.letters.map((letters) => `<c r="${letters}`);
    this.isText = columns.map((column) => column.kind === 'text');
    this.textRest = this.fixedIds.map((id) => `" s="${id ?? 0}" t="inlineStr">`);
    this.trueRest = this.fixedIds.map((id) => `" s="${id}" t="b"><v>1</v></c>`);
    this.falseRest = this.fixedIds.map((id) => `" s="${id}" t="b"><v>0</v></c>`);
    this.numberRest = this.fixedIds.map((id) => (id === undefined ? undefined : `" s="${id}"><v>`));
  }

  /**
   * Adds the XML of row `index` of `columns` (a chunk's column vectors, one per sheet column; `rowNumber` its
   * 1-based row in the worksheet; null cells left out) to the pending bytes. Each row's text is copied into one
   * buffer at once, so the short-lived strings die young: a chunk's text kept as one long string cost more in
   * garbage collection than building it.
   */
  append(columns: readonly ColumnValues[], index: number, rowNumber: number): void {
    // Each cell is `<c r="` and its letters, the row number, then the column's fixed rest, made once.
    const number = String(rowNumber);
    let xml = `<row r="${number}">`;
    for (let i = 0; i < this.cellOpen.length; i++) {
      const value = columns[i]!.getItem(index);
      if (value === null || value === undefined) continue;
      if (this.isText[i] || typeof value === 'string') {
        const text = String(value);
        const cell = `${this.cellOpen[i]}${number}${this.textRest[i]}${inlineStringXml(text)}</c>`;
        // A character beyond Latin-1 (a PIN's mask, ••••) makes a string two-byte: such a cell is copied on its
        // own, so the rest of the row stays one-byte, which V8 joins and copies into UTF-8 faster (the 1M month's
        // report ~0.6 s faster).
        if (beyondLatin1.test(text)) {
          this.write(xml);
          this.write(cell);
          xml = '';
        } else xml += cell;
      } else if (typeof value === 'boolean') {
        xml += `${this.cellOpen[i]}${number}${value ? this.trueRest[i] : this.falseRest[i]}`;
      } else if (typeof value === 'number' && Number.isFinite(value)) {
        const rest = this.numberRest[i] ?? `" s="${this.moneyId(columns[this.currencyIndex[i]!]!.getItem(index))}"><v>`;
        xml += `${this.cellOpen[i]}${number}${rest}${value}</v></c>`;
      } else {
        // Excel has no NaN or infinity: say what it was as text.
        xml += `${this.cellOpen[i]}${number}" t="inlineStr">${inlineStringXml(String(value))}</c>`;
      }
    }
    this.write(`${xml}</row>`);
  }

  /** Copies XML text into the pending bytes. */
  private write(xml: string): void {
    const most = xml.length * 3;
    if (this.used + most > this.pending.length) {
      const larger = Buffer.allocUnsafe(Math.max(this.pending.length * 2, this.used + most));
      this.pending.copy(larger, 0, 0, this.used);
      this.pending = larger;
    }
    this.used += this.pending.write(xml, this.used, 'utf8');
  }

  /** The rows appended since the last take, as bytes of their own. */
  take(): Buffer {
    const bytes = Buffer.from(this.pending.subarray(0, this.used));
    this.used = 0;
    return bytes;
  }

  private moneyId(currency: unknown): number {
    const key = typeof currency === 'string' ? currency : '';
    let id = this.moneyIds.get(key);
    if (id === undefined) this.moneyIds.set(key, (id = this.styleId(this.styles.money(key || null))));
    return id;
  }
}

/**
 * The shared style id of `style` in a streaming workbook (exceljs's own cells get theirs the same way,
 * so the ids are those its styles.xml is written with at commit).
 */
export function workbookStyleId(workbook: ExcelJS.stream.xlsx.WorkbookWriter): (style: CellStyle) => number {
  const styles = (workbook as unknown as { styles: { addStyleModel(style: CellStyle, type: number): number } }).styles;
  // ValueType.Number: a style without a number format gets "General", as exceljs gives a numeric cell.
  return (style) => styles.addStyleModel(style, 2);
}

/** Writes row XML into the worksheet's part of the zip, after the header row exceljs has committed. */
export function writeSheetXml(worksheet: ExcelJS.Worksheet, xml: Buffer): void {
  if (xml.length > 0) (worksheet as unknown as { stream: { write(bytes: Buffer): unknown } }).stream.write(xml);
}
