-- One row per completed by-creation extract window (extract_windows, by_flag created): its days and the local
-- date its answer was fetched on. Only the days that had ended by then are complete in it (a day still under
-- way may gain sales): int_provider__created_coverage counts those.
-- materialized: view
with

params as (

    select * from cfg_params

),

source as (

    select * from extract_windows

),

final as (

    select
        source.window_start,
        source.window_end,
        cast(timezone(params.timezone, source.completed_at) as date) as completed_local_date

    from source
    cross join params
    where source.by_flag = 'created'

)

select * from final
