-- One row per command run (and per step of `pinrecon run`): what it did, how hard it hit the API, how it ended.
CREATE TABLE IF NOT EXISTS pipeline_runs (
  run_id        VARCHAR PRIMARY KEY,
  command       VARCHAR NOT NULL,       -- extract, catalog, ledger import, reconcile, report, run, ...
  started_at    TIMESTAMPTZ NOT NULL,
  finished_at   TIMESTAMPTZ,
  status        VARCHAR NOT NULL,       -- running | succeeded | failed | abandoned (killed before finishing)
  requests      BIGINT NOT NULL DEFAULT 0,
  retries       BIGINT NOT NULL DEFAULT 0,
  rate_limited  BIGINT NOT NULL DEFAULT 0,  -- 503 answers received
  rows_loaded   BIGINT NOT NULL DEFAULT 0,
  error         VARCHAR,
  parent_run_id VARCHAR,                -- the `run` job this step belongs to
  args          VARCHAR,                -- JSON of the command's arguments (never credentials)
  details       VARCHAR                 -- JSON summary of the run
);
-- Who ran it, so the next job can tell whether a run left `running` died (a gone pid on this host is proof).
ALTER TABLE pipeline_runs ADD COLUMN IF NOT EXISTS pid BIGINT;
ALTER TABLE pipeline_runs ADD COLUMN IF NOT EXISTS hostname VARCHAR;
