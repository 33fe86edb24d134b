/**
 * The workbook's `Suggested matches` sheet (issue 29) and what the finding sheets show of it: every suggestion of the
 * period by score, both sides, the reasons, its `Suggestion ID` and a `Decision` (confirm | reject) and `Note` read
 * back by `findings import` (match-sheet-reader.ts); the current decision comes from the decision rows.
 */
import { sqlString } from '../core/sql.js';
import { localTimeSql } from '../core/zoned-time.js';
import type { Warehouse } from '../core/warehouse.js';
import { datetime, type DetailSheet, integer, money as moneyColumn, type SheetColumn, text } from './sheet-spec.js';

/** What a person types in the sheet's Decision column, and the decision row each becomes. */
export const matchChoices = ['confirm', 'reject'] as const;

/** The header of the sheet's id column: how the reader tells this sheet from a finding sheet. */
export const suggestionIdHeader = 'Suggestion ID';

/** `selected` of the current match decision of the row's suggestion (recon_decisions), over recon_match_suggestions. */
const currentMatchDecision = (selected: string) =>
  `(SELECT ${selected} FROM recon_decisions d WHERE d.finding_id = recon_match_suggestions.suggestion_id
     AND d.superseded_at IS NULL AND d.decision IN ('match_confirmed', 'match_rejected'))`;
const currentDecision = (column: string) => currentMatchDecision(`d.${column}`);

const money = (key: string, header: string, sql: string) => moneyColumn(key, header, sql, 'currency', 12);

export function suggestedMatchesSheet(period: string, timezone: string): DetailSheet {
  return {
    title: 'Suggested matches',
    description: 'a paid order and a sale under two spellings of one reference: confirm or reject each',
    columns: [
      integer('score', 'Score', 7),
      text('ledger_reference', 'Ledger reference', 18),
      text('provider_reference', 'Provider reference', 18),
      integer('rank', 'Rank', 6),
      integer('transaction_id', 'Transaction ID', 15),
      text('currency', 'Currency', 9, 'currency_code'),
      integer('ledger_product', 'Ledger product', 10, 'ledger_product_id'),
      integer('provider_product', 'Provider product', 10, 'provider_product_id'),
      money('ledger_cost', 'Ledger cost', 'ledger_cost'),
      money('provider_cost', 'Provider cost', 'provider_cost'),
      money('ledger_price', 'Ledger price', 'ledger_price'),
      money('provider_price', 'Provider price', 'provider_price'),
      datetime('paid_at', 'Ledger paid at'),
      datetime('transaction_at', 'Provider date'),
      text('reasons', 'Reasons', 48, "replace(reasons, '; ', chr(10))"),
      text('suggestion_id', suggestionIdHeader, 33),
      {
        key: 'decision',
        header: 'Decision',
        kind: 'text',
        sql: `CASE ${currentDecision('decision')}
                WHEN 'match_confirmed' THEN 'confirm' WHEN 'match_rejected' THEN 'reject' END`,
        width: 10,
        choices: matchChoices,
      },
      text('decision_note', 'Note', 28, currentDecision('note')),
      {
        key: 'decided_by',
        header: 'Decided by',
        kind: 'text',
        sql: currentDecision('decided_by'),
        width: 16,
        readOnly: true,
      },
      {
        key: 'decided_at',
        header: 'Decided at',
        kind: 'text',
        sql: localTimeSql(currentDecision('decided_at'), timezone, { zoned: true }),
        width: 36,
        readOnly: true,
      },
      // the decision the row is written with: an import tells a row left as written from one typed over a newer one
      {
        key: 'decision_ref',
        header: 'Decision ref',
        kind: 'text',
        sql: currentDecision('row_sha256'),
        width: 12,
        readOnly: true,
      },
    ],
    table: 'recon_match_suggestions',
    where: `period = ${sqlString(period)}`,
    orderBy: 'score DESC, ledger_reference, transaction_id, suggestion_id',
    printColumns: ['score', 'ledger_reference', 'provider_reference', 'reasons', 'suggestion_id', 'decision'],
  };
}

/**
 * A missing row's best proposed match, as SQL over recon_exceptions: an order's (no sale: by its reference) or a
 * sale's (by its transaction id) — the other side's reference, the score and the suggestion id (the Suggested
 * matches sheet has the rest).
 */
export const bestSuggestionSql = `(SELECT s.provider_reference || ' ↔ ' || s.ledger_reference || ' (score ' || s.score
     || ', suggestion ' || s.suggestion_id || ')'
   FROM recon_match_suggestions s
   WHERE s.period = recon_exceptions.period AND s.status = 'proposed'
     AND (recon_exceptions.transaction_id IS NULL AND s.ledger_reference = recon_exceptions.partner_reference
          OR s.transaction_id = recon_exceptions.transaction_id)
   ORDER BY s.score DESC, s.suggestion_id LIMIT 1)`;

/** The Missing sheet's column of best suggestions. */
export const bestSuggestionColumn: SheetColumn = text('best_suggestion', 'Best suggestion', 40, bestSuggestionSql);

/** How many of the period's suggested matches nobody has confirmed or rejected yet: the email's line (issue 29). */
export async function loadSuggestionsToReview(warehouse: Warehouse, period: string): Promise<number> {
  const row = await warehouse.one<{ n: string }>(
    `SELECT count(*)::VARCHAR AS n FROM recon_match_suggestions WHERE period = $1 AND status = 'proposed'
       AND NOT EXISTS ${currentMatchDecision('1')}`,
    [period],
  );
  return Number(row?.n ?? 0);
}

/** The email's line: the proposals waiting for a person, and where to decide them. */
export function suggestionsEmailLine(toReview: number | undefined): string | null {
  if (!toReview) return null;
  const where = 'Suggested matches sheet: confirm or reject each; pinrecon matches list';
  return `Suggested matches to review: ${toReview} (${where})`;
}
