-- The period's reconciliation state: the as-of date it was reconciled at and when (local time), or NULLs when
-- the period was never reconciled. Parameters: $period (YYYY-MM), $timezone.
SELECT max(as_of)::VARCHAR AS as_of,
       strftime(timezone($timezone, max(built_at)), '%Y-%m-%d %H:%M:%S') AS reconciled_at
FROM recon_summary
WHERE period = $period
