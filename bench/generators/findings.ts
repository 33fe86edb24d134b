/**
 * A period's findings generated in DuckDB with SQL, for the benches that need many: each decided (the decision
 * cycling through every one there is), of six types over six sheets, one in five in USD; and the period's summary
 * row, so the report and the review page see a reconciled period.
 */
import { decisions } from '../../core/decisions.js';
import { sqlString } from '../../core/sql.js';
import type { Warehouse } from '../../core/warehouse.js';

/** Inserts `count` decided findings of `period` (as of 2025-04-05) and the period's summary row. */
export async function insertDecidedFindings(warehouse: Warehouse, period: string, count: number): Promise<void> {
  const decisionList = `[${decisions.map(sqlString).join(', ')}]`;
  await warehouse.run(`
    INSERT INTO recon_exceptions (period, finding_id, exception_type, family, partner_reference, transaction_id,
                                  product_id, ledger_value, provider_value, difference, currency_code, details,
                                  first_detected_at, amount, as_of, built_at, run_id, decision, decision_note, owner,
                                  expected_clear_by)
    SELECT '${period}', md5('bench|' || i), t.exception_type, t.family, 'PO-' || lpad(i::VARCHAR, 8, '0'), i,
           100 + i % 50, 8.00, 8.50, 0.50, CASE WHEN i % 5 = 0 THEN 'USD' ELSE 'BRL' END, 'generated finding',
           TIMESTAMPTZ '2025-04-05 10:00:00+00', 0.50, DATE '2025-04-05', TIMESTAMPTZ '2025-04-05 10:00:00+00', 'bench',
           ${decisionList}[1 + i % ${decisions.length}], 'note ' || i, 'owner ' || (i % 20),
           -- clear-by dates ahead of today: a timing decision with one already past is refused (issue 28)
           current_date + 30 + (i % 60)::INTEGER
    FROM range(1, ${count + 1}) AS r(i)
    JOIN (VALUES (0, 'missing_in_ledger', 'missing'), (1, 'cost_mismatch', 'amounts'),
                 (2, 'canceled_but_booked', 'status'), (3, 'duplicate_reference', 'duplicates'),
                 (4, 'cutoff_difference', 'cutoff'), (5, 'unredeemed_key', 'unredeemed'))
      AS t(k, exception_type, family) ON t.k = i % 6;
    INSERT INTO recon_summary (period, as_of, currency_code, ledger_orders, ledger_active_orders, ledger_sales_total,
                               ledger_cost_total, provider_sales, provider_billable_sales, provider_sales_total,
                               provider_cost_total, provider_margin, matched, exceptions, built_at, run_id)
    VALUES ('${period}', DATE '2025-04-05', 'BRL', 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, ${count},
            TIMESTAMPTZ '2025-04-05 10:00:00+00', 'bench');
  `);
}
