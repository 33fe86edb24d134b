/**
 * Materiality (issue 30): after a reconcile, every undecided finding of the period whose money at issue is under
 * `reconciliation.materiality` of its currency is decided `accepted` by the rule — through the same recording
 * path as a person's decision (decideFindings: the chain, the gates, a signed period refused), decided by
 * `rule:materiality` with the threshold in its note — so it is visible, listed apart in the Summary, never dropped.
 */
import type { Config } from '../../config/schema.js';
import type { Warehouse } from '../../core/warehouse.js';
import { findingsUnderMateriality, materialityActor } from '../close/materiality-rule.js';
import { activeSignoff } from '../close/signoffs.js';
import { decideFindings } from './findings.js';

export interface MaterialityResult {
  /** Findings accepted by the rule, per currency. */
  accepted: { currency: string; findings: number; threshold: string }[];
  /** Why nothing was decided (no thresholds, a signed-off period), when so. */
  skipped: string | null;
}

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
  for (const [currency, threshold] of thresholds) {
    const ids = await findingsUnderMateriality(warehouse, period, currency, threshold, true);
    if (ids.length === 0) continue;
    const { absolute, percent } = threshold;
    const stated = `${currency} ${absolute}${percent === undefined ? '' : ` and ${percent}% of the agreed value`}`;
    await decideFindings(warehouse, ids, {
      decision: 'accepted',
      note: `under materiality: money at issue at most ${stated} (reconciliation.materiality)`,
      by: materialityActor,
      timezone: config.timezone,
    });
    result.accepted.push({ currency, findings: ids.length, threshold: stated });
  }
  return result;
}
