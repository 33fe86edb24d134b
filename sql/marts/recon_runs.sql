-- One row: this reconcile run of the period, with how many findings were new, still open and cleared.
with

params as (

    select * from cfg_params

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
        cast(null as varchar) as stage_seconds

    from params
    cross join changes
    cross join scope

)

select * from final
