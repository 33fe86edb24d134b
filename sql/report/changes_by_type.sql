-- What one reconcile run found new, still open and cleared, per finding type. Parameters: $run_id.
SELECT exception_type,
       count(*) FILTER (WHERE change = 'new') AS "new",
       count(*) FILTER (WHERE change = 'still_open') AS still_open,
       count(*) FILTER (WHERE change = 'cleared') AS cleared
FROM recon_exception_history
WHERE run_id = $run_id
GROUP BY exception_type
ORDER BY exception_type
