-- The period's latest reconcile run and the one before it (what "new" and "cleared" are measured against),
-- newest first, built_at in local time. Parameters: $period, $timezone.
SELECT run_id, strftime(timezone($timezone, built_at), '%Y-%m-%d %H:%M:%S') AS built_at, "new", still_open, cleared
FROM recon_runs
WHERE period = $period
ORDER BY built_at DESC, run_id DESC
LIMIT 2
