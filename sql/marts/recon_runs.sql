-- One row: this reconcile run of the period, with how many findings were new, still open and cleared, and the
-- seconds each stage took (run_stage_seconds, set before publishing). Every run's row is kept.
-- materialized: append
with

params as (

    select * from cfg_params

),

timings as (

    select * from run_stage_seconds

),

history as (

    select * from recon_exception_history

),

classified as (

    select * from int_recon_rows_classified
    where match_class <> 'out_of_period'

),

changes as (

    select
        count(*) filter (where change <> 'cleared') as exceptions,
        count(*) filter (where change = 'new') as new,
        count(*) filter (where change = 'still_open') as still_open,
        count(*) filter (where change = 'cleared') as cleared

    from history

),

scope as (

    select
        count(*) filter (where side = 'ledger') as ledger_lines,
        count(*) filter (where side = 'provider') as provider_sales

    from classified

),

final as (

    select
        params.run_id,
        params.period,
        params.as_of,
        params.built_at,
        changes.exceptions,
        changes.new,
        changes.still_open,
        changes.cleared,
        scope.ledger_lines,
        scope.provider_sales,
        params.lookups,
        params.lookups_found,
        timings.stage_seconds

    from params
    cross join changes
    cross join scope
    cross join timings

)

select * from final
