-- The roll-forward of the period's open findings per currency (recon_roll_forward), counts and amounts as text,
-- with the decisions recorded since the reconcile that built it counted in (issue 30: after close it said
-- "written off 0" beside 3 write-offs): a finding written off since then moves from open to written off, one
-- whose write-off was changed since then moves back. The check stays what the mart computed (zero).
-- Parameters: $period.
WITH built AS (
    SELECT * FROM recon_roll_forward WHERE period = $period
),

-- each finding of the period: written off now, and written off when the mart was built
decided AS (
    SELECT e.currency_code, e.amount,
           coalesce(e.decision = 'write_off', false) AS off_now,
           coalesce((
               SELECT arg_max(d.decision, d.decided_at) FROM recon_decisions d
               WHERE d.finding_id = e.finding_id AND d.period = e.period AND d.decided_at <= b.built_at
           ) = 'write_off', false) AS off_at_build
    FROM recon_exceptions e
    JOIN built b ON b.currency_code IS NOT DISTINCT FROM e.currency_code
    WHERE e.period = $period
),

since AS (
    SELECT currency_code,
           count(*) FILTER (WHERE off_now AND NOT off_at_build)
               - count(*) FILTER (WHERE off_at_build AND NOT off_now) AS written_off,
           coalesce(sum(amount) FILTER (WHERE off_now AND NOT off_at_build), 0)
               - coalesce(sum(amount) FILTER (WHERE off_at_build AND NOT off_now), 0) AS written_off_amount
    FROM decided
    GROUP BY currency_code
)

SELECT b.currency_code, b.open_at_start, b.open_at_start_amount::VARCHAR AS open_at_start_amount, b.new,
       b.new_amount::VARCHAR AS new_amount, b.cleared, b.cleared_amount::VARCHAR AS cleared_amount,
       b.written_off + coalesce(s.written_off, 0) AS written_off,
       (b.written_off_amount + coalesce(s.written_off_amount, 0))::VARCHAR AS written_off_amount,
       b.remeasured_amount::VARCHAR AS remeasured_amount,
       b.open_at_end - coalesce(s.written_off, 0) AS open_at_end,
       (b.open_at_end_amount - coalesce(s.written_off_amount, 0))::VARCHAR AS open_at_end_amount,
       b.check_count, b.check_amount::VARCHAR AS check_amount, b.previous_built_at IS NOT NULL AS has_previous
FROM built b
LEFT JOIN since s ON s.currency_code IS NOT DISTINCT FROM b.currency_code
ORDER BY b.currency_code NULLS LAST
