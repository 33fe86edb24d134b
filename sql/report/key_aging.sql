-- The unredeemed keys of the period per currency and aging bucket, buckets youngest first. Parameters: $period.
SELECT currency_code, aging_bucket, keys, cost_total
FROM recon_aging
WHERE period = $period
ORDER BY currency_code NULLS LAST,
         CASE aging_bucket WHEN '0-7' THEN 1 WHEN '8-30' THEN 2 WHEN '31-90' THEN 3 WHEN '90+' THEN 4 ELSE 5 END,
             aging_bucket
