/**
 * The runner's input for what follows into the month (issue 30): the findings of every earlier period, as their
 * own period's last reconcile left them, with their current decision (`earlier_findings`). The mart
 * recon_carried_forward keeps the open ones (not cleared, not written off or accepted) with their age and overdue
 * state, so the report and email of a period show what earlier months left open.
 */
import { declareInput, persistent } from '../../core/model-runner.js';
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
