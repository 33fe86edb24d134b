-- The "amounts" family: a matched pair (one ledger line, one sale) whose cost or sales price differ beyond the
-- tolerances, or whose currency or product differ. One row per pair and type, in the columns every
-- int_recon_findings__<family> model shares (int_recon_findings_detected unions them).
with

pairs as (

    select * from int_recon_pairs_flagged
    where is_cost_mismatch or is_price_mismatch or is_currency_mismatch or is_product_mismatch

),

pair_rules as (

    select * from (values
        ('cost_mismatch'), ('price_mismatch'), ('currency_mismatch'), ('product_mismatch')
    ) as rules (exception_type)

),

final as (

    select
        pair_rules.exception_type,
        pairs.partner_reference as group_key,
        pairs.partner_reference,
        pairs.transaction_id,
        pairs.ledger_product_id as product_id,
        case pair_rules.exception_type
            when 'cost_mismatch' then pairs.expected_cost
            when 'price_mismatch' then pairs.ledger_sales_price
        end as ledger_value,
        case pair_rules.exception_type
            when 'cost_mismatch' then pairs.partner_cost_price
            when 'price_mismatch' then pairs.provider_sales_price
        end as provider_value,
        case pair_rules.exception_type
            when 'cost_mismatch' then pairs.cost_difference
            when 'price_mismatch' then pairs.price_difference
        end as difference,
        pairs.ledger_currency_code as currency_code,
        case pair_rules.exception_type
            when 'cost_mismatch' then
                'expected cost ' || pairs.expected_cost || ', provider cost ' || pairs.partner_cost_price
            when 'price_mismatch' then
                'ledger sales price ' || pairs.ledger_sales_price || ', provider sales price ' ||
                    pairs.provider_sales_price
            when 'currency_mismatch' then
                'ledger currency ' || coalesce(pairs.ledger_currency_code, '?')
                || ', provider currency ' || coalesce(pairs.provider_currency_code, '?')
            when 'product_mismatch' then
                'ledger product ' || pairs.ledger_product_id
                || ', provider product ' || coalesce(cast(pairs.provider_product_id as varchar), '?')
        end as details,
        pairs.ledger_source,
        pairs.status,
        pairs.status_class,
        pairs.order_status,
        pairs.transaction_at,
        pairs.paid_at,
        pairs.key_last4,
        cast(null as integer) as age_days

    from pairs
    cross join pair_rules
    where case pair_rules.exception_type
        when 'cost_mismatch' then pairs.is_cost_mismatch
        when 'price_mismatch' then pairs.is_price_mismatch
        when 'currency_mismatch' then pairs.is_currency_mismatch
        when 'product_mismatch' then pairs.is_product_mismatch
    end

)

select * from final
