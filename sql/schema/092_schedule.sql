-- The scheduler's memory (issue 31). `schedule_fires`: the last fire time of each schedule, kept so that
-- `pinrecon schedule` started again runs once a fire time it missed while it was down.
CREATE TABLE IF NOT EXISTS schedule_fires (
  schedule      VARCHAR PRIMARY KEY,   -- the schedule's name in the config
  cron          VARCHAR NOT NULL,      -- its cron expression then (a changed expression starts afresh)
  last_fired_at TIMESTAMPTZ NOT NULL   -- the fire time last run (or when the scheduler first saw the schedule)
);

-- One row per scheduled job the scheduler ran, with how it ended and the alert a failure sent.
CREATE TABLE IF NOT EXISTS schedule_runs (
  schedule      VARCHAR NOT NULL,
  fired_at      TIMESTAMPTZ NOT NULL,  -- the fire time the job ran for
  caught_up     BOOLEAN NOT NULL,      -- run at start, for a fire time missed while the scheduler was down
  command       VARCHAR NOT NULL,      -- `pinrecon …` as run (period resolved)
  started_at    TIMESTAMPTZ NOT NULL,
  finished_at   TIMESTAMPTZ NOT NULL,
  exit_code     INTEGER,               -- NULL when ended by a signal or never started
  outcome       VARCHAR NOT NULL,      -- succeeded | failed | abandoned | not started
  log_line      VARCHAR,               -- the job's last error line on stderr, for a job that did not succeed
  alert_to      VARCHAR,               -- recipients of the alert, comma-separated; NULL when none was due
  alert_status  VARCHAR                -- sent | not sent: <reason>; NULL when none was due
);
