-- One row per currency of the period: the ledger's and the provider's totals, matched pairs and findings,
-- and the period's verdict (incomplete | reconciled | reconciled_with_findings) and sign-off status
-- (unsigned | signed | changed_since_signoff, with this currency's amount delta since the sign-off).
with

params as (

    select * from cfg_params

),

ledger as (

    select * from int_ledger__orders_classified
    where is_in_period

),

sales as (

    select * from int_provider__sales_classified
    where is_in_period

),

pairs as (

    select * from int_recon_pairs_compared

),

findings as (

    select * from recon_exceptions

),

ledger_totals as (

    select
        currency_code,
        count(*) as ledger_orders,
        count(*) filter (where is_active) as ledger_active_orders,
        coalesce(sum(sales_price) filter (where is_active), 0) as ledger_sales_total,
        coalesce(sum(expected_cost) filter (where is_active), 0) as ledger_cost_total

    from ledger
    group by currency_code

),

provider_totals as (

    select
        currency_code,
        count(*) as provider_sales,
        count(*) filter (where is_billable) as provider_billable_sales,
        coalesce(sum(sales_price) filter (where is_billable), 0) as provider_sales_total,
        coalesce(sum(partner_cost_price) filter (where is_billable), 0) as provider_cost_total

    from sales
    group by currency_code

),

matched_totals as (

    select
        ledger_currency_code as currency_code,
        count(*) as matched

    from pairs
    group by ledger_currency_code

),

signoff_changes as (

    select * from recon_signoff_changes

),

signoff_deltas as (

    select
        currency_code,
        sum(amount_delta) as amount_delta

    from signoff_changes
    group by currency_code

),

finding_totals as (

    select
        currency_code,
        count(*) as exceptions

    from findings
    group by currency_code

),

currencies as (

    select currency_code from ledger_totals
    union
    select currency_code from provider_totals
    union
    select currency_code from matched_totals
    union
    select currency_code from finding_totals

),

final as (

    select
        params.period,
        params.as_of,
        currencies.currency_code,
        coalesce(ledger_totals.ledger_orders, 0) as ledger_orders,
        coalesce(ledger_totals.ledger_active_orders, 0) as ledger_active_orders,
        cast(coalesce(ledger_totals.ledger_sales_total, 0) as decimal(18, 4)) as ledger_sales_total,
        cast(coalesce(ledger_totals.ledger_cost_total, 0) as decimal(18, 4)) as ledger_cost_total,
        coalesce(provider_totals.provider_sales, 0) as provider_sales,
        coalesce(provider_totals.provider_billable_sales, 0) as provider_billable_sales,
        cast(coalesce(provider_totals.provider_sales_total, 0) as decimal(18, 4)) as provider_sales_total,
        cast(coalesce(provider_totals.provider_cost_total, 0) as decimal(18, 4)) as provider_cost_total,
        cast(coalesce(provider_totals.provider_sales_total, 0) - coalesce(provider_totals.provider_cost_total, 0)
            as decimal(18, 4)) as provider_margin,
        coalesce(matched_totals.matched, 0) as matched,
        coalesce(finding_totals.exceptions, 0) as exceptions,
        params.built_at,
        params.run_id,
        case
            when not params.complete then 'incomplete'
            when (select count(*) from findings) = 0 then 'reconciled'
            else 'reconciled_with_findings'
        end as verdict,
        params.incomplete_reasons,
        case
            when params.signoff_id is null then 'unsigned'
            when (select count(*) from signoff_changes) > 0 then 'changed_since_signoff'
            else 'signed'
        end as signoff_status,
        params.signoff_id,
        case when params.signoff_id is not null
            then cast(coalesce(signoff_deltas.amount_delta, 0) as decimal(18, 4))
        end as signoff_amount_delta

    from currencies
    cross join params
    left join ledger_totals
        on ledger_totals.currency_code is not distinct from currencies.currency_code
    left join provider_totals
        on provider_totals.currency_code is not distinct from currencies.currency_code
    left join matched_totals
        on matched_totals.currency_code is not distinct from currencies.currency_code
    left join finding_totals
        on finding_totals.currency_code is not distinct from currencies.currency_code
    left join signoff_deltas
        on signoff_deltas.currency_code is not distinct from currencies.currency_code

)

select * from final
