-- One row per finding of an earlier period still open when this period is reconciled (issue 30: what follows
-- into the month): not cleared (its own period's last reconcile still has it) and not written off or accepted.
-- Age counts from its first detection for every finding type; overdue: past its expected_clear_by, or timing
-- without one.
with

params as (

    select * from cfg_params

),

earlier as (

    select * from earlier_findings

),

finding_types as (

    select * from cfg_exception_types

),

open_findings as (

    select * from earlier
    where coalesce(decision, '') not in ('write_off', 'accepted')

),

final as (

    select
        params.period,
        open_findings.from_period,
        open_findings.finding_id,
        open_findings.exception_type,
        open_findings.partner_reference,
        open_findings.currency_code,
        coalesce(open_findings.amount, 0) as amount,
        case when finding_types.exposure_from = 'provider_value' then coalesce(open_findings.provider_value, 0) end
            as exposure,
        open_findings.decision,
        open_findings.owner,
        open_findings.expected_clear_by,
        open_findings.first_detected_at,
        greatest(
            date_diff('day', cast(timezone(params.timezone, open_findings.first_detected_at) as date), params.as_of), 0
        ) as age_days,
        coalesce(
            open_findings.expected_clear_by < params.as_of
            or (open_findings.decision = 'timing' and open_findings.expected_clear_by is null),
            false
        ) as overdue,
        params.as_of,
        params.built_at,
        params.run_id

    from open_findings
    cross join params
    left join finding_types
        on finding_types.exception_type = open_findings.exception_type

)

select * from final
