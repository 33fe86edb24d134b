/**
 * Materiality (issue 30): after a reconcile, every undecided finding of the period whose money at issue is under
 * `reconciliation.materiality` of its currency is decided `accepted` by the rule — through the same recording
 * path as a person's decision (decideFindings: the chain, the gates, a signed period refused), decided by
 * `rule:materiality` with the threshold in its note — so it is visible, listed apart in the Summary, never dropped.
 */
import type { Config } from '../../config/schema.js';
import type { Warehouse } from '../../core/warehouse.js';
import { findingExposureSql } from '../../reports/finding-amount.js';
import { activeSignoff } from '../close/signoffs.js';
import { decideFindings } from './findings.js';

/** Who the rule's decisions are recorded by. */
export const materialityActor = 'rule:materiality';

export interface MaterialityResult {
  /** Findings accepted by the rule, per currency. */
  accepted: { currency: string; findings: number; threshold: string }[];
  /** Why nothing was decided (no thresholds, a signed-off period), when so. */
  skipped: string | null;
}

/** SQL: the money at issue of the recon_exceptions row aliased `e`: its difference, else its cost bridge amount. */
export const materialMoneySql = (e: string) => `abs(coalesce(${e}.difference, ${e}.amount, 0))`;

export async function applyMateriality(
  warehouse: Warehouse,
  config: Config,
  period: string,
): Promise<MaterialityResult> {
  const thresholds = Object.entries(config.reconciliation.materiality);
  if (thresholds.length === 0) return { accepted: [], skipped: 'no reconciliation.materiality set' };
  const signoff = await activeSignoff(warehouse, period, config.timezone);
  if (signoff) return { accepted: [], skipped: `${period} is signed off: decisions wait for a reopen` };
  const result: MaterialityResult = { accepted: [], skipped: null };
  for (const [currency, { absolute, percent }] of thresholds) {
    const money = materialMoneySql('e');
    const relative = percent === undefined ? 'true' : `${money} <= abs(e.ledger_value) * $percent::DECIMAL(9,4) / 100`;
    const ids = await warehouse.all<{ finding_id: string }>(
      `SELECT e.finding_id FROM recon_exceptions e
       WHERE e.period = $period AND e.currency_code = $currency AND e.decision IS NULL
         AND ${findingExposureSql('e')} IS NULL AND ${money} > 0
         AND ${money} <= $absolute::DECIMAL(18,4) AND ${relative}
       ORDER BY e.finding_id`,
      { period, currency, absolute: String(absolute), ...(percent === undefined ? {} : { percent: String(percent) }) },
    );
    if (ids.length === 0) continue;
    const threshold = `${currency} ${absolute}${percent === undefined ? '' : ` and ${percent}% of the agreed value`}`;
    await decideFindings(
      warehouse,
      ids.map((r) => r.finding_id),
      {
        decision: 'accepted',
        note: `under materiality: money at issue at most ${threshold} (reconciliation.materiality)`,
        by: materialityActor,
        timezone: config.timezone,
      },
    );
    result.accepted.push({ currency, findings: ids.length, threshold });
  }
  return result;
}
