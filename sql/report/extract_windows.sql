-- The completed extract windows that overlap the period, completed_at in local time.
-- Parameters: $period_start, $period_end (the period's first and last dates), $timezone.
SELECT window_start::VARCHAR AS window_start, window_end::VARCHAR AS window_end, by_flag,
       strftime(timezone($timezone, completed_at), '%Y-%m-%d %H:%M:%S') AS completed_at,
       records, quarantined, run_id
FROM extract_windows
WHERE window_start <= $period_end::DATE AND window_end >= $period_start::DATE
ORDER BY window_start, window_end, by_flag
