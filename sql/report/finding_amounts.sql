-- One row per finding type and currency of the period: how many findings, and the money they compare and move.
-- Parameters: $period.
SELECT exception_type, currency_code, count(*) AS findings, sum(ledger_value) AS ledger_value,
       sum(provider_value) AS provider_value, sum(difference) AS difference, sum(amount) AS amount
FROM recon_exceptions
WHERE period = $period
GROUP BY exception_type, currency_code
ORDER BY exception_type, currency_code NULLS LAST
