/**
 * The materiality rule's one predicate (issue 30): which findings of a period `reconciliation.materiality` puts
 * under the threshold of their currency. pipelines/decisions/materiality.ts accepts the undecided ones by it; verify
 * (verify-chains.ts) asks it again of every unsigned `rule:materiality` acceptance, since no key signs the rule's
 * rows: one typed under the rule's name for a finding above the threshold is a forgery, not the rule.
 */
import type { ReconciliationConfig } from '../../config/schema.js';
import type { Warehouse } from '../../core/warehouse.js';
import type { Manifest } from './manifest.js';
import { findingExposureSql } from '../../reports/finding-amount.js';

/** Who the rule's decisions are recorded by. */
export const materialityActor = 'rule:materiality';

export type MaterialityThresholds = ReconciliationConfig['materiality'];
export type MaterialityThreshold = MaterialityThresholds[string];

/** SQL: the money at issue of the recon_exceptions row aliased `e`: its difference, else its cost bridge amount. */
export const materialMoneySql = (e: string) => `abs(coalesce(${e}.difference, ${e}.amount, 0))`;

/** The findings of `period` in `currency` under `threshold` (only the undecided ones when `undecided`). */
export async function findingsUnderMateriality(
  warehouse: Warehouse,
  period: string,
  currency: string,
  { absolute, percent }: MaterialityThreshold,
  undecided: boolean,
): Promise<string[]> {
  const money = materialMoneySql('e');
  const relative = percent === undefined ? 'true' : `${money} <= abs(e.ledger_value) * $percent::DECIMAL(9,4) / 100`;
  const rows = await warehouse.all<{ finding_id: string }>(
    `SELECT e.finding_id FROM recon_exceptions e
     WHERE e.period = $period AND e.currency_code = $currency ${undecided ? 'AND e.decision IS NULL' : ''}
       AND ${findingExposureSql('e')} IS NULL AND ${money} > 0
       AND ${money} <= $absolute::DECIMAL(18,4) AND ${relative}
     ORDER BY e.finding_id`,
    { period, currency, absolute: String(absolute), ...(percent === undefined ? {} : { percent: String(percent) }) },
  );
  return rows.map((r) => r.finding_id);
}

/** Every finding of `period` the rule may accept under `thresholds` (what verify holds a rule's row to). */
export async function allUnderMateriality(
  warehouse: Warehouse,
  period: string,
  thresholds: MaterialityThresholds,
): Promise<Set<string>> {
  const under = new Set<string>();
  for (const [currency, threshold] of Object.entries(thresholds))
    for (const id of await findingsUnderMateriality(warehouse, period, currency, threshold, false)) under.add(id);
  return under;
}

/** The materiality thresholds the period's active sign-off sealed in its manifest, if it recorded them. */
export async function sealedMateriality(
  warehouse: Warehouse,
  period: string,
): Promise<MaterialityThresholds | undefined> {
  const active = await warehouse.one<{ manifest: string }>(
    `SELECT manifest FROM period_signoffs WHERE period = $1 AND reopened_at IS NULL ORDER BY signed_at DESC LIMIT 1`,
    [period],
  );
  return active ? (JSON.parse(active.manifest) as Manifest).materiality : undefined;
}
