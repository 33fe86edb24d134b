-- When the last API response of a window overlapping the period was fetched (local time), or NULL.
-- Parameters: $period_start, $period_end (the period's first and last dates), $timezone.
SELECT strftime(timezone($timezone, max(fetched_at)), '%Y-%m-%d %H:%M:%S') AS at
FROM landing_files
WHERE window_start <= $period_end::DATE AND window_end >= $period_start::DATE
