-- The period's missing_at_provider findings by how the provider's having no sale was proven (recon_exceptions.proof):
-- windows | lookup | unproven. Parameters: $period (YYYY-MM).
SELECT coalesce(proof, 'unproven') AS proof, count(*) AS findings
FROM recon_exceptions
WHERE period = $period AND exception_type = 'missing_at_provider'
GROUP BY ALL
