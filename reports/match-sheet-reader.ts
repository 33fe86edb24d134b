/**
 * Reads the confirmations and rejections typed into a workbook's Suggested matches sheet (issue 29), through the
 * generic sheet reader (core/xlsx-sheet-reader.ts: saxes over streamed parts, bounded), as the decisions and the
 * ledger are read (issue 31: exceljs's streaming reader decoded each inflated chunk apart and split multi-byte
 * Notes). The sheet is found by its header row (a `Suggestion ID` and a `Decision` column), so it may be renamed or
 * moved; other sheets are passed over. It only reads; whether a row may be recorded is decided by
 * pipelines/decisions/matches.ts.
 */
import {
  defaultSheetReadLimits,
  readSheetsByHeader,
  type SheetCell,
  type SheetLayout,
  type SheetReadLimits,
} from '../core/xlsx-sheet-reader.js';
import { workbookReadError } from './workbook-read-error.js';
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

/** The Suggested matches sheet: found by a header naming at least `Suggestion ID` and `Decision`. */
export const matchLayout: SheetLayout<'suggestionId' | 'decision' | 'note' | 'decisionRef'> = {
  headers: { suggestionId: suggestionIdHeader, decision: 'Decision', note: 'Note', decisionRef: 'Decision ref' },
  required: ['suggestionId', 'decision'],
};

export async function readMatchDecisions(
  file: string,
  limits: SheetReadLimits = defaultSheetReadLimits,
): Promise<TypedMatchDecision[]> {
  const typed: TypedMatchDecision[] = [];
  try {
    for await (const event of readSheetsByHeader(file, { matches: matchLayout }, limits)) {
      const decision = event.kind === 'row' ? typedMatchDecision(event.sheet, event.row, event.values) : null;
      if (decision) typed.push(decision);
    }
  } catch (error) {
    throw workbookReadError(file, error);
  }
  return typed;
}

/** A row of the match layout as typed, or null when its Decision is empty (a Note alone is not a decision). */
export function typedMatchDecision(
  sheet: string,
  row: number,
  values: Record<string, SheetCell>,
): TypedMatchDecision | null {
  const decision = cellText(values.decision);
  if (decision === null) return null;
  return {
    sheet,
    row,
    suggestionId: cellText(values.suggestionId),
    decision: decision.toLowerCase(),
    note: cellText(values.note),
    ...('decisionRef' in values ? { decisionRef: cellText(values.decisionRef) } : {}),
  };
}

/** A cell as trimmed text, or null when empty. */
function cellText(value: SheetCell | undefined): string | null {
  if (value === null || value === undefined) return null;
  const text = String(value).trim();
  return text === '' ? null : text;
}
