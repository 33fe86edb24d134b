-- One row per suggested match of the period (issue 29): the pairs int_recon_match_candidates proposes, and the pairs
-- someone confirmed or rejected (int_recon_match_decided: their status from the decision rows), each with both
-- sides' reference, product, cost, price and time, its score, reasons and, for proposals, its rank among the
-- ledger order's candidates (1 = best).
with

params as (

    select * from cfg_params

),

candidates as (

    select * from int_recon_match_candidates

),

decided as (

    select * from int_recon_match_decided
    where period = (select period from cfg_params)

),

ledger as (

    select * from int_ledger__orders_classified

),

sales as (

    -- any stored sale: a decided pair's sale may be dated outside the period's scope (up to maxDays past its edge)
    select
        staged.*,
        cast(timezone(params.timezone, staged.transaction_at) as date) as transaction_local_date

    from stg_provider__sales as staged
    cross join params
    where staged.transaction_id in (select transaction_id from decided)

),

proposed as (

    select
        suggestion_id,
        ledger_reference,
        transaction_id,
        provider_reference,
        ledger_product_id,
        provider_product_id,
        ledger_cost,
        provider_cost,
        ledger_price,
        provider_price,
        currency_code,
        paid_at,
        transaction_at,
        days_apart,
        score,
        rank,
        reasons,
        'proposed' as status,
        cast(null as varchar) as decided_by,
        cast(null as timestamptz) as decided_at,
        cast(null as varchar) as note

    from candidates

),

decided_ledger as (

    -- the decided pairs' ledger lines (one per reference unless the reference is duplicated)
    select
        ledger.partner_reference,
        any_value(ledger.product_id) as product_id,
        any_value(ledger.expected_cost) as expected_cost,
        any_value(ledger.sales_price) as sales_price,
        any_value(ledger.currency_code) as currency_code,
        any_value(ledger.paid_at) as paid_at,
        any_value(ledger.paid_local_date) as paid_local_date

    from ledger
    inner join decided
        on decided.ledger_reference = ledger.partner_reference
    group by ledger.partner_reference

),

decided_rows as (

    select
        decided.suggestion_id,
        decided.ledger_reference,
        decided.transaction_id,
        decided.provider_reference,
        decided_ledger.product_id as ledger_product_id,
        sales.product_id as provider_product_id,
        decided_ledger.expected_cost as ledger_cost,
        sales.partner_cost_price as provider_cost,
        decided_ledger.sales_price as ledger_price,
        sales.sales_price as provider_price,
        coalesce(decided_ledger.currency_code, sales.currency_code) as currency_code,
        decided_ledger.paid_at,
        sales.transaction_at,
        abs(date_diff('day', decided_ledger.paid_local_date, sales.transaction_local_date)) as days_apart,
        decided.score,
        cast(null as bigint) as rank,
        decided.reasons,
        decided.status,
        decided.decided_by,
        decided.decided_at,
        decided.note

    from decided
    left join decided_ledger
        on decided_ledger.partner_reference = decided.ledger_reference
    left join sales
        on sales.transaction_id = decided.transaction_id

),

final as (

    select
        params.period,
        unioned.*,
        params.built_at,
        params.run_id

    from (
        select * from proposed
        union all by name
        select * from decided_rows
    ) as unioned
    cross join params

)

select * from final
