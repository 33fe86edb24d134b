-- The seconds each stage of this reconcile run took, for recon_runs: one row, created (temporary) by
-- pipelines/reconcile/reconcile.ts with stage_seconds NULL, and set after the data tests, when the stages are known;
-- the models reading it are then rebuilt (recon_runs alone), and the marts published.
CREATE OR REPLACE TEMP TABLE run_stage_seconds (
  stage_seconds VARCHAR  -- JSON: {"staging": 0.02, "intermediate": 1.08, ...}
                         -- (staging, intermediate, marts, lookup, rebuild, tests)
)
