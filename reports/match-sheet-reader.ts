/**
 * Reads the confirmations and rejections typed into a workbook's Suggested matches sheet (issue 29), streamed with
 * exceljs's WorkbookReader (memory holds the shared strings and one row). The sheet is found by its header row (a
 * `Suggestion ID` and a `Decision` column), so it may be renamed or moved; other sheets are drained unread. It only
 * reads; whether a row may be recorded is decided by pipelines/decisions/matches.ts.
 */
import type ExcelJS from 'exceljs';
import { JobError } from '../core/errors.js';
import { checkXlsxLimits } from '../core/xlsx-limits.js';
import { zipEntries, zipRecords, type ZipEntry } from '../core/zip-entries.js';
import { suggestionIdHeader } from './match-sheet.js';

/** A row of the Suggested matches sheet with something typed in its Decision column. */
export interface TypedMatchDecision {
  sheet: string;
  /** The row number as the spreadsheet shows it. */
  row: number;
  suggestionId: string | null;
  /** As typed, trimmed and lower-cased: confirm | reject, or anything else (refused by the importer). */
  decision: string;
  note: string | null;
  /**
   * The decision the row was written with (its recon_decisions row_sha256; null: none then); undefined when the
   * sheet has no `Decision ref` column.
   */
  decisionRef?: string | null;
}

/** Rows searched for the header, from the top of each sheet. */
const headerSearchRows = 20;

export async function readMatchDecisions(file: string): Promise<TypedMatchDecision[]> {
  await checkXlsxLimits(file);
  const { default: excel } = await import('exceljs');
  const entries = [...zipEntries(file).values()];
  const isSheet = (entry: ZipEntry) => /^\/?xl\/worksheets\/sheet\d+\.xml$/.test(entry.name);
  // The sheets after every other part, as sources/ledger/xlsx.ts explains: exceljs then reads each as it comes.
  const { stream } = zipRecords(file, [...entries.filter((e) => !isSheet(e)), ...entries.filter(isSheet)]);
  const workbook = new excel.stream.xlsx.WorkbookReader(stream, {
    sharedStrings: 'cache',
    styles: 'ignore',
    hyperlinks: 'ignore',
    worksheets: 'emit',
    entries: 'ignore',
  });
  (workbook as unknown as { sharedStrings: unknown[] }).sharedStrings = [];
  const typed: TypedMatchDecision[] = [];
  try {
    for await (const worksheet of workbook) {
      const name = (worksheet as unknown as { name: string }).name;
      let columns: { id: number; decision: number; note: number; ref: number } | undefined;
      for await (const row of worksheet as AsyncIterable<ExcelJS.Row>) {
        const text = (column: number) => cellText(row.getCell(column).value);
        if (!columns) {
          if (row.number > headerSearchRows) continue; // not this sheet: drained unread
          const headers = (row.values as unknown[]).map((v) => cellText(v));
          const id = headers.indexOf(suggestionIdHeader);
          const decision = headers.indexOf('Decision');
          const ref = headers.indexOf('Decision ref');
          if (id > 0 && decision > 0) columns = { id, decision, note: headers.indexOf('Note'), ref };
          continue;
        }
        const decision = text(columns.decision);
        if (decision === null) continue;
        typed.push({
          sheet: name,
          row: row.number,
          suggestionId: text(columns.id),
          decision: decision.toLowerCase(),
          note: columns.note > 0 ? text(columns.note) : null,
          ...(columns.ref > 0 ? { decisionRef: text(columns.ref) } : {}),
        });
      }
    }
  } catch (error) {
    throw new JobError(
      `${file} could not be read as an XLSX workbook (${(error as Error).message}).`,
      'Import the workbook as pinrecon report wrote it, saved by Excel or LibreOffice as .xlsx.',
      { cause: error },
    );
  } finally {
    stream.destroy();
  }
  return typed;
}

/** A cell as trimmed text (rich text joined, a formula's result), or null when empty. */
function cellText(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'object') {
    const cell = value as { richText?: { text: string }[]; result?: unknown; text?: string };
    if (cell.richText) return cellText(cell.richText.map((r) => r.text).join(''));
    if ('result' in cell) return cellText(cell.result);
    if (typeof cell.text === 'string') return cellText(cell.text);
    return null;
  }
  const text = String(value).trim();
  return text === '' ? null : text;
}
