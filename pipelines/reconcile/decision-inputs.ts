/**
 * The runner's inputs that come from people rather than data: the current decision of each finding
 * (`cur_recon_decisions`) and the suggested-match settings (`cfg_suggest`, issue 29). The decided pairs themselves
 * are read by the model int_recon_match_decided from recon_match_pairs and recon_decisions.
 */
import type { Config } from '../../config/schema.js';
import { declareInput, persistent } from '../../core/model-runner.js';
import type { Warehouse } from '../../core/warehouse.js';

/** The temporary tables createDecisionInputs makes, dropped after the run. */
export const decisionInputTables = ['cur_recon_decisions', 'cfg_suggest'] as const;

export async function createDecisionInputs(
  warehouse: Warehouse,
  config: Config,
  database: string,
  period: string,
): Promise<void> {
  // Decisions are kept apart from the marts (findings import/decide), so they survive this rebuild.
  await warehouse.run(
    `CREATE OR REPLACE TEMP TABLE cur_recon_decisions AS
     SELECT finding_id, decision, note, owner, expected_clear_by, decided_by, decided_at, row_sha256
     FROM ${persistent(database, 'recon_decisions')} WHERE period = $1 AND superseded_at IS NULL`,
    [period],
  );
  const suggest = config.reconciliation.suggest;
  await declareInput(warehouse, 'cfg_suggest');
  await warehouse.run('INSERT INTO cfg_suggest VALUES ($1, $2, $3)', [
    suggest.enabled,
    suggest.minScore,
    suggest.maxDays,
  ]);
}
