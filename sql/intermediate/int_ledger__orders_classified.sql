-- One row per accepted ledger line: the staged line with the local date and period it was paid in, in the
-- configured time zone, whether that is the period being reconciled, and whether the order is active (paid).
with

params as (

    select * from cfg_params

),

ledger as (

    select * from stg_ledger__orders

),

dated as (

    select
        ledger.*,
        cast(timezone(params.timezone, ledger.paid_at) as date) as paid_local_date

    from ledger
    cross join params

),

final as (

    select
        dated.*,
        strftime(dated.paid_local_date, '%Y-%m') as paid_period,
        dated.paid_local_date between params.period_start and params.period_end as is_in_period,
        -- only paid orders are owed to the provider; refunded and canceled ones should have been reversed
        dated.order_status = 'paid' as is_active

    from dated
    cross join params

)

select * from final
