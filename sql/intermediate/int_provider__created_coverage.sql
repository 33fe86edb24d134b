-- One row: whether the stored by-creation windows prove that a reference no stored sale carries has no sale at
-- the provider (README "Proof of absence"): they must cover every day from extract.historyStart (the
-- provider holds no sale of ours created before it) to the day before the as-of date, each day counted only in
-- a window fetched after it had ended. Without historyStart nothing is proven by the windows.
with

params as (

    select * from cfg_params

),

windows as (

    select * from stg_extract__created_windows

),

covered_days as (

    select distinct
        cast(unnest(generate_series(
            cast(windows.window_start as timestamp),
            cast(least(windows.window_end, windows.completed_local_date - 1) as timestamp),
            interval 1 day
        )) as date) as day

    from windows

),

needed_days as (

    select cast(unnest(generate_series(
        cast(params.history_start as timestamp),
        cast(params.as_of - 1 as timestamp),
        interval 1 day
    )) as date) as day

    from params
    where params.history_start is not null

),

uncovered as (

    select
        min(needed_days.day) as first_day,
        max(needed_days.day) as last_day,
        count(*) as days

    from needed_days
    anti join covered_days
        on covered_days.day = needed_days.day

),

final as (

    select
        params.history_start,
        params.as_of - 1 as covered_through,
        uncovered.first_day as first_uncovered_day,
        uncovered.last_day as last_uncovered_day,
        uncovered.days as uncovered_days,
        params.history_start is not null and uncovered.days = 0 as proves_absence

    from params
    cross join uncovered

)

select * from final
