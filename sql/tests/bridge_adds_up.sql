-- The cost bridge of each currency adds up exactly: the ledger's expected cost of paid orders of the period,
-- plus every explained step, equals the provider's cost of billable sales of the period — both totals
-- recomputed here from staging, so a lost or double-counted item shows.
with

ledger_totals as (

    select currency_code, sum(expected_cost) as ledger_cost
    from int_ledger__orders_classified
    where is_in_period and is_active
    group by currency_code

),

provider_totals as (

    select currency_code, sum(partner_cost_price) as provider_cost
    from int_provider__sales_classified
    where is_in_period and is_billable
    group by currency_code

),

bridge as (

    select
        currency_code,
        arg_min(amount, step) as opening,
        sum(amount) - arg_min(amount, step) - arg_max(amount, step) as explained,
        arg_max(amount, step) as closing

    from recon_bridge
    group by currency_code

),

currencies as (

    select currency_code from ledger_totals
    union
    select currency_code from provider_totals
    union
    select currency_code from bridge

),

final as (

    select
        currencies.currency_code,
        coalesce(ledger_totals.ledger_cost, 0) as ledger_cost,
        bridge.opening,
        bridge.explained,
        bridge.closing,
        coalesce(provider_totals.provider_cost, 0) as provider_cost

    from currencies
    left join ledger_totals on ledger_totals.currency_code is not distinct from currencies.currency_code
    left join provider_totals on provider_totals.currency_code is not distinct from currencies.currency_code
    left join bridge on bridge.currency_code is not distinct from currencies.currency_code
    where bridge.opening is null
        or bridge.opening <> coalesce(ledger_totals.ledger_cost, 0)
        or bridge.closing <> coalesce(provider_totals.provider_cost, 0)
        or bridge.opening + bridge.explained <> bridge.closing

)

select * from final
