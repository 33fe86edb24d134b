-- One row per matched pair whose two sides differ in some field (issue 29): every such field in one short text,
-- `cost 10.00 → 10.50; product 1501 → 1502` (ledger → provider) — the reference (a confirmed suggested match),
-- product, cost and price (beyond the tolerances), currency, status class (paid against canceled, refunded or
-- canceled against not canceled) and period. recon_exceptions gives it to every finding of the pair.
with

pairs as (

    select * from int_recon_pairs_flagged

),

confirmed as (

    select * from int_recon_match_decided
    where is_matched

),

final as (

    select
        pairs.partner_reference,
        pairs.transaction_id,
        concat_ws('; ',
            case
                when confirmed.transaction_id is not null
                    then 'reference ' || pairs.partner_reference || ' → ' || confirmed.provider_reference
            end,
            case
                when pairs.is_product_mismatch
                    then 'product ' || coalesce(cast(pairs.ledger_product_id as varchar), '?')
                    || ' → ' || coalesce(cast(pairs.provider_product_id as varchar), '?')
            end,
            case
                when pairs.is_cost_mismatch then 'cost '
                    || regexp_replace(cast(pairs.expected_cost as varchar), '(\.\d\d\d*?)0+$', '\1') || ' → '
                    || regexp_replace(cast(pairs.partner_cost_price as varchar), '(\.\d\d\d*?)0+$', '\1')
            end,
            case
                when pairs.is_price_mismatch then 'price '
                    || regexp_replace(cast(pairs.ledger_sales_price as varchar), '(\.\d\d\d*?)0+$', '\1') || ' → '
                    || regexp_replace(cast(pairs.provider_sales_price as varchar), '(\.\d\d\d*?)0+$', '\1')
            end,
            case
                when pairs.is_currency_mismatch then 'currency ' || coalesce(pairs.ledger_currency_code, '?')
                    || ' → ' || coalesce(pairs.provider_currency_code, '?')
            end,
            case
                when pairs.is_canceled_but_booked or pairs.is_refunded_not_reversed
                    then 'status ' || pairs.order_status || ' → ' || pairs.status_class
            end,
            case
                when pairs.is_cutoff then 'period ' || pairs.paid_period || ' → ' || pairs.transaction_period
            end
        ) as differences

    from pairs
    left join confirmed
        on confirmed.transaction_id = pairs.transaction_id
    where confirmed.transaction_id is not null
        or pairs.is_product_mismatch
        or pairs.is_cost_mismatch
        or pairs.is_price_mismatch
        or pairs.is_currency_mismatch
        or pairs.is_canceled_but_booked
        or pairs.is_refunded_not_reversed
        or pairs.is_cutoff

)

select * from final
