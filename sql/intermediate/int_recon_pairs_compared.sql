-- One row per matched pair in the period's scope (one ledger line, one provider sale, same reference): the two ids,
-- the rules' verdicts and the finding type that explains its cost difference. Only what every pair's readers need is
-- kept (the cost bridge, the summary): the values and differences the few flagged or confirmed pairs show are
-- fetched by id, once (int_recon_pairs_flagged), instead of a million rows of 36 columns held and spilled (issue 33).
with

params as (

    select * from cfg_params

),

classified as (

    select * from int_recon_rows_classified
    where match_class = 'matched'

),

ledger as (

    select * from int_ledger__orders_classified

),

sales as (

    select * from int_provider__sales_classified

),

matched_ledger as (

    select ledger.*
    from ledger
    inner join classified
        on classified.side = 'ledger'
        and classified.ledger_line_id = ledger.ledger_line_id

),

paired as (

    select
        matched_ledger.partner_reference,
        matched_ledger.ledger_line_id,
        matched_sales.transaction_id,
        matched_ledger.product_id as ledger_product_id,
        matched_sales.product_id as provider_product_id,
        matched_ledger.sales_price as ledger_sales_price,
        matched_sales.sales_price as provider_sales_price,
        matched_ledger.expected_cost,
        matched_sales.partner_cost_price,
        matched_ledger.currency_code as ledger_currency_code,
        matched_sales.currency_code as provider_currency_code,
        matched_ledger.order_status,
        matched_ledger.is_active,
        matched_sales.status,
        matched_sales.status_class,
        matched_sales.is_billable,
        matched_ledger.paid_at,
        matched_ledger.paid_local_date,
        matched_ledger.paid_period,
        matched_ledger.is_in_period as ledger_in_period,
        matched_sales.transaction_at,
        matched_sales.transaction_local_date,
        matched_sales.transaction_period,
        matched_sales.is_in_period as provider_in_period,
        matched_sales.key_last4

    -- a matched group holds one line and one sale of the same reference: the sale is the only one with it
    from matched_ledger
    inner join sales as matched_sales
        on matched_sales.partner_reference = matched_ledger.partner_reference

),

compared as (

    select
        paired.*,
        abs(paired.partner_cost_price - paired.expected_cost) > params.cost_tolerance as is_cost_mismatch,
        abs(paired.provider_sales_price - paired.ledger_sales_price) > params.price_tolerance as is_price_mismatch,
        paired.ledger_currency_code is distinct from paired.provider_currency_code as is_currency_mismatch,
        paired.ledger_product_id is distinct from paired.provider_product_id as is_product_mismatch,
        paired.paid_period is distinct from paired.transaction_period as is_cutoff,
        paired.status_class = 'canceled' and paired.order_status = 'paid' as is_canceled_but_booked,
        -- "not canceled" as the README's rules say: an unknown status is not a reversal (and is reported as well)
        paired.order_status in ('refunded', 'canceled')
            and paired.status_class <> 'canceled' as is_refunded_not_reversed,
        paired.status_class = 'unknown' as is_unknown_status

    from paired
    cross join params

),

final as (

    select
        partner_reference,
        ledger_line_id,
        transaction_id,
        ledger_currency_code,
        is_cost_mismatch,
        is_price_mismatch,
        is_currency_mismatch,
        is_product_mismatch,
        is_cutoff,
        is_canceled_but_booked,
        is_refunded_not_reversed,
        is_unknown_status,
        -- the one finding that carries this pair's effect on the cost bridge (NULL: within tolerance)
        case
            when is_cutoff then 'cutoff_difference'
            when is_canceled_but_booked then 'canceled_but_booked'
            when is_refunded_not_reversed then 'refunded_not_reversed'
            when is_currency_mismatch then 'currency_mismatch'
            when is_cost_mismatch then 'cost_mismatch'
            when is_unknown_status then 'unknown_status'
        end as bridge_finding_type

    from compared

)

select * from final
