-- The roll-forward of the period's open findings per currency (recon_roll_forward), counts and amounts as text.
-- Parameters: $period.
SELECT currency_code, open_at_start, open_at_start_amount::VARCHAR AS open_at_start_amount, new, new_amount::VARCHAR AS new_amount,
       cleared, cleared_amount::VARCHAR AS cleared_amount, written_off, written_off_amount::VARCHAR AS written_off_amount,
       remeasured_amount::VARCHAR AS remeasured_amount, open_at_end, open_at_end_amount::VARCHAR AS open_at_end_amount,
       check_count, check_amount::VARCHAR AS check_amount, previous_built_at IS NOT NULL AS has_previous
FROM recon_roll_forward
WHERE period = $period
ORDER BY currency_code NULLS LAST
