-- One row per step of the period's cost bridge per currency: step 0 the ledger's expected cost of paid orders,
-- then each difference explained by finding type (the registry's bridge steps, cfg_exception_types, and the matched
-- pairs' differences within tolerance), last the provider's cost of billable sales. Opening + the steps = closing,
-- exactly (sql/tests prove it).
with

params as (

    select * from cfg_params

),

summary as (

    select * from recon_summary

),

bridge_items as (

    select * from int_recon_bridge_items_attributed

),

explaining_steps as (

    -- The registry's bridge steps (cfg_exception_types), then the matched pairs' differences within tolerance.
    select bridge_step as step, exception_type, bridge_label as label
    from cfg_exception_types
    where bridge_step is not null
    union all
    select max(bridge_step) + 1, null, 'Matched pairs: differences within tolerance'
    from cfg_exception_types

),

step_totals as (

    select
        currency_code,
        exception_type,
        sum(amount) as amount,
        -- an item: a group with its sale, or without one (NULL); the pair counted as it is, no text built of it
        count(distinct (group_key, transaction_id)) as items

    from bridge_items
    group by all

),

opening as (

    select
        currency_code,
        0 as step,
        'Ledger expected cost (paid orders)' as label,
        cast(null as varchar) as exception_type,
        ledger_cost_total as amount,
        ledger_active_orders as items

    from summary

),

explained as (

    select
        summary.currency_code,
        explaining_steps.step,
        explaining_steps.label,
        explaining_steps.exception_type,
        coalesce(step_totals.amount, 0) as amount,
        coalesce(step_totals.items, 0) as items

    from summary
    cross join explaining_steps
    left join step_totals
        on step_totals.currency_code is not distinct from summary.currency_code
        and step_totals.exception_type is not distinct from explaining_steps.exception_type

),

closing as (

    select
        currency_code,
        (select max(step) + 1 from explaining_steps) as step,
        'Provider cost (billable sales)' as label,
        cast(null as varchar) as exception_type,
        provider_cost_total as amount,
        provider_billable_sales as items

    from summary

),

unioned as (

    select * from opening
    union all
    select * from explained
    union all
    select * from closing

),

final as (

    select
        params.period,
        unioned.currency_code,
        unioned.step,
        unioned.label,
        unioned.exception_type,
        cast(unioned.amount as decimal(18, 4)) as amount,
        unioned.items,
        params.as_of,
        params.built_at,
        params.run_id

    from unioned
    cross join params

)

select * from final
