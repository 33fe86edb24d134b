-- The cost bridge of the period, per currency and step (recon_bridge). Parameters: $period.
SELECT currency_code, step, label, exception_type, amount, items
FROM recon_bridge
WHERE period = $period
ORDER BY currency_code NULLS LAST, step
