-- One row per accepted ledger line of the period's scope: the staged line with the local date and period it was paid
-- in, in the configured time zone, whether that is the period being reconciled, and whether the order is active (paid).
with

params as (

    select * from cfg_params

),

scope as (

    select * from int_recon_scope_references

),

ledger as (

    -- the rows of the period's scope (int_recon_scope_references): a reference of the period's days, or no
    -- reference and dated within a day of the period
    select staged.*
    from stg_ledger__orders as staged
    cross join cfg_params as params
    where staged.partner_reference in (select partner_reference from scope)
        or staged.partner_reference is null
            and staged.paid_at >= params.scope_starts_at
            and staged.paid_at < params.scope_ends_at

),

dated as (

    select
        -- what no later model reads stays in the staging view: every column here is held in memory
        ledger.* exclude (partner_reference_raw, paid_at_raw, country_code),
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
