-- One row per finding touched by this run: new (not open before), still_open (open before and now),
-- or cleared (open before, gone now). Every run's rows are kept.
-- materialized: append
with

params as (

    select * from cfg_params

),

current_findings as (

    select * from recon_exceptions

),

previous as (

    select * from prev_recon_exceptions

),

found_now as (

    select
        current_findings.finding_id,
        current_findings.exception_type,
        current_findings.partner_reference,
        current_findings.transaction_id,
        case when previous.finding_id is null then 'new' else 'still_open' end as change,
        current_findings.first_detected_at

    from current_findings
    left join previous
        on previous.finding_id = current_findings.finding_id

),

cleared as (

    select
        previous.finding_id,
        previous.exception_type,
        previous.partner_reference,
        previous.transaction_id,
        'cleared' as change,
        previous.first_detected_at

    from previous
    anti join current_findings
        on current_findings.finding_id = previous.finding_id

),

unioned as (

    select * from found_now
    union all
    select * from cleared

),

final as (

    select
        params.run_id,
        params.period,
        unioned.finding_id,
        unioned.exception_type,
        unioned.partner_reference,
        unioned.transaction_id,
        unioned.change,
        unioned.first_detected_at,
        params.built_at as recorded_at

    from unioned
    cross join params

)

select * from final
