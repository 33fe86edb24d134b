/**
 * `findings list` and `findings history`: the period's findings with their current decision and state, and who
 * decided what, when and from which source.
 */
import { JobError } from '../../core/errors.js';
import { localTimeSql } from '../../core/zoned-time.js';
import type { Warehouse } from '../../core/warehouse.js';
import { findingStateSql } from '../../reports/finding-state.js';
import { findingAmountSql, findingExposureSql } from '../../reports/finding-amount.js';

/** A finding as `findings list` shows it. */
export type ListedFinding = {
  finding_id: string;
  exception_type: string;
  partner_reference: string | null;
  transaction_id: string | null;
  currency_code: string | null;
  /** The finding's amount: its cost bridge effect (reports/finding-amount.ts). */
  amount: string | null;
  /** An unredeemed key's cost at stake, apart from its amount (issue 30); null for other types. */
  exposure: string | null;
  difference: string | null;
  /** Every field in which the two sides differ (issue 29), e.g. `cost 10.00 → 10.50; product 1501 → 1502`. */
  differences: string | null;
  state: string;
  decision: string | null;
  owner: string | null;
  expected_clear_by: string | null;
  decision_note: string | null;
};

/** `findings list --period P [--undecided]`: the period's findings with their current decision and state. */
export async function listFindings(
  warehouse: Warehouse,
  options: { period: string; undecided?: boolean },
): Promise<ListedFinding[]> {
  return warehouse.all<ListedFinding>(
    `SELECT * FROM (
       SELECT e.finding_id, e.exception_type, e.partner_reference, e.transaction_id::VARCHAR AS transaction_id,
              e.currency_code,
              ${findingAmountSql('e')}::VARCHAR AS amount, ${findingExposureSql('e')}::VARCHAR AS exposure,
              e.difference::VARCHAR AS difference, e.differences,
              ${findingStateSql('e')} AS state,
              e.decision, e.owner, e.expected_clear_by::VARCHAR AS expected_clear_by, e.decision_note
       FROM recon_exceptions e WHERE e.period = $1
     ) ${options.undecided ? `WHERE decision IS NULL` : ''}
     ORDER BY exception_type, partner_reference NULLS LAST, transaction_id NULLS LAST, finding_id`,
    [options.period],
  );
}

/** A recorded decision as `findings history` shows it. */
export type DecisionHistoryRow = {
  period: string;
  chain_position: string | null;
  finding_id: string;
  exception_type: string | null;
  partner_reference: string | null;
  decision: string;
  note: string | null;
  owner: string | null;
  expected_clear_by: string | null;
  decided_by: string;
  /** In the configured zone, with the zone named. */
  decided_at: string;
  source: string;
  superseded_at: string | null;
  row_sha256: string | null;
};

/** `findings history (ID | --period P)`: who decided what, when and from which source, in the order recorded. */
export async function decisionHistory(
  warehouse: Warehouse,
  selector: { findingId?: string; period?: string },
  timezone: string,
): Promise<DecisionHistoryRow[]> {
  const local = (column: string) => localTimeSql(column, timezone, { seconds: true, zoned: true });
  const where = selector.findingId !== undefined ? 'd.finding_id = $1' : 'd.period = $1';
  const rows = await warehouse.all<DecisionHistoryRow>(
    `SELECT d.period, d.chain_position::VARCHAR AS chain_position, d.finding_id, e.exception_type, e.partner_reference,
            d.decision, d.note, d.owner, d.expected_clear_by::VARCHAR AS expected_clear_by, d.decided_by,
            ${local('d.decided_at')} AS decided_at, d.source, ${local('d.superseded_at')} AS superseded_at, d.row_sha256
     FROM recon_decisions d
     LEFT JOIN (SELECT DISTINCT ON (finding_id) finding_id, exception_type, partner_reference FROM recon_exceptions) e
       ON e.finding_id = d.finding_id
     WHERE ${where}
     ORDER BY d.period, d.chain_position NULLS LAST, d.decided_at, d.finding_id`,
    [selector.findingId ?? selector.period!],
  );
  if (rows.length === 0 && selector.findingId !== undefined) {
    const known = await warehouse.one<{ n: string }>(
      'SELECT count(*)::VARCHAR AS n FROM recon_exceptions WHERE finding_id = $1',
      [selector.findingId],
    );
    if (Number(known?.n ?? 0) === 0) {
      throw new JobError(
        `No finding ${selector.findingId} and no decision on it in the database.`,
        'Find the finding ids with pinrecon findings list --period P.',
      );
    }
  }
  return rows;
}
