-- One row per contribution to the period's cost bridge: each paid ledger order of the period (its expected cost,
-- negative) and each billable provider sale of the period (its cost, positive), attributed to the one finding
-- that explains it (exception_type NULL: a matched pair within tolerance). Per currency, the items add up to
-- provider cost total - ledger cost total, exactly.
with

-- classified and pairs are each read twice (ledger, provider): not materialized, as reading a table again costs
-- less than holding a copy of its million rows (this model 1.1 -> 0.85 s at 1M)
classified as not materialized (

    select * from int_recon_rows_classified

),

ledger as (

    select * from int_ledger__orders_classified

),

sales as (

    select * from int_provider__sales_classified

),

pairs as not materialized (

    select * from int_recon_pairs_compared

),

ledger_items as (

    select
        'ledger' as side,
        ledger.ledger_line_id as row_id,
        classified.group_key,
        classified.match_class,
        ledger.currency_code,
        -ledger.expected_cost as amount,
        case classified.match_class
            when 'matched' then pairs.bridge_finding_type
            when 'duplicate' then 'duplicate_reference'
            when 'ledger_only' then 'missing_at_provider'
        end as exception_type,
        case when classified.match_class = 'matched' then pairs.transaction_id end as transaction_id

    -- left, not inner: every line of the period is classified once (conservation tests); see int_recon_pairs_flagged
    from ledger
    left join classified
        on classified.side = 'ledger'
        and classified.ledger_line_id = ledger.ledger_line_id
    left join pairs
        on pairs.ledger_line_id = ledger.ledger_line_id
    where ledger.is_in_period
        and ledger.is_active

),

provider_items as (

    select
        'provider' as side,
        sales.transaction_id as row_id,
        classified.group_key,
        classified.match_class,
        sales.currency_code,
        sales.partner_cost_price as amount,
        case classified.match_class
            when 'matched' then pairs.bridge_finding_type
            when 'duplicate' then 'duplicate_reference'
            when 'provider_only' then 'missing_in_ledger'
        end as exception_type,
        case when classified.match_class in ('matched', 'provider_only') then sales.transaction_id end as transaction_id

    -- left, not inner: every sale of the period is classified once (conservation tests); see int_recon_pairs_flagged
    from sales
    left join classified
        on classified.side = 'provider'
        and classified.transaction_id = sales.transaction_id
    left join pairs
        on pairs.transaction_id = sales.transaction_id
    where sales.is_in_period
        and sales.is_billable

),

unioned as (

    select * from ledger_items
    union all
    select * from provider_items

),

final as (

    select * from unioned

)

select * from final
