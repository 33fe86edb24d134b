/**
 * The runner's input for what follows into the month (issue 30): the findings of every earlier period, as their
 * own period's last reconcile left them, with their current decision (`earlier_findings`). The mart
 * recon_carried_forward keeps the open ones (not cleared, not written off or accepted) with their age and overdue
 * state, so the report and email of a period show what earlier months left open; refreshCarriedForward keeps
 * those rows current when a finding is decided or cleared after the later period was reconciled.
 */
import { declareInput, persistent } from '../../core/model-runner.js';
import { sqlString } from '../../core/sql.js';
import type { Warehouse } from '../../core/warehouse.js';

/** The temporary tables createCarriedInputs makes, dropped after the run. */
export const carriedInputTables = ['earlier_findings'] as const;

export async function createCarriedInputs(warehouse: Warehouse, database: string, period: string): Promise<void> {
  await declareInput(warehouse, 'earlier_findings');
  await warehouse.run(
    `INSERT INTO earlier_findings BY NAME
     SELECT e.period AS from_period, e.finding_id, e.exception_type, e.partner_reference, e.currency_code, e.amount,
            e.provider_value, e.first_detected_at, d.decision, d.owner, d.expected_clear_by
     FROM ${persistent(database, 'recon_exceptions')} e
     LEFT JOIN ${persistent(database, 'recon_decisions')} d
       ON d.finding_id = e.finding_id AND d.period = e.period AND d.superseded_at IS NULL
     WHERE e.period < $1`,
    [period],
  );
}

/**
 * Brings rows of recon_carried_forward up to date with their findings as they stand now (issue 30): a decision
 * taken on an earlier period's finding after a later period was reconciled shows in that later period's report at
 * once, not only after it is reconciled again. A row whose finding is now written off or accepted, or no longer in
 * its own period's findings (cleared by a later reconcile of that period), is removed; the others take the
 * finding's current decision, owner and clear-by, and overdue again at the row's as_of (the mart's rule,
 * sql/marts/recon_carried_forward.sql). `rows`: a report's period, or the findings listed in a table.
 */
export async function refreshCarriedForward(
  warehouse: Warehouse,
  rows: { period: string } | { findingsIn: string },
): Promise<void> {
  const which =
    'period' in rows
      ? `recon_carried_forward.period = ${sqlString(rows.period)}`
      : `recon_carried_forward.finding_id IN (SELECT finding_id FROM ${rows.findingsIn})`;
  await warehouse.run(
    `DELETE FROM recon_carried_forward WHERE ${which} AND NOT EXISTS (
       SELECT 1 FROM recon_exceptions e
       WHERE e.finding_id = recon_carried_forward.finding_id AND e.period = recon_carried_forward.from_period
         AND coalesce(e.decision, '') NOT IN ('write_off', 'accepted'))`,
  );
  await warehouse.run(
    `UPDATE recon_carried_forward
     SET decision = e.decision, owner = e.owner, expected_clear_by = e.expected_clear_by,
         overdue = coalesce(e.expected_clear_by < recon_carried_forward.as_of
                            OR (e.decision = 'timing' AND e.expected_clear_by IS NULL), false)
     FROM recon_exceptions e
     WHERE ${which}
       AND e.finding_id = recon_carried_forward.finding_id AND e.period = recon_carried_forward.from_period`,
  );
}
