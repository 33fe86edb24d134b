-- The runs that completed an extract window overlapping the period, times in local time.
-- Parameters: $period_start, $period_end (the period's first and last dates), $timezone.
SELECT run_id, command,
       strftime(timezone($timezone, started_at), '%Y-%m-%d %H:%M:%S') AS started_at,
       strftime(timezone($timezone, finished_at), '%Y-%m-%d %H:%M:%S') AS finished_at,
       status, requests, retries, rate_limited, rows_loaded
FROM pipeline_runs
WHERE run_id IN (
    SELECT run_id FROM extract_windows
    WHERE window_start <= $period_end::DATE AND window_end >= $period_start::DATE
)
ORDER BY started_at, run_id
