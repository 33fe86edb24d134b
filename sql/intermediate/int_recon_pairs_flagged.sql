-- The matched pairs some pair rule flags (a cost, price, currency, product, status or cutoff difference) or a person
-- confirmed (a suggested match, int_recon_match_decided), with both sides' values that their findings and differences
-- show. int_recon_pairs_compared keeps only the ids and verdicts of every pair; these few fetch the rest here once, for
-- every model that reports a pair (int_recon_findings__amounts, __status, __cutoff, __missing,
-- int_recon_match_differences; issue 27).
with

confirmed as (

    select transaction_id from int_recon_match_decided
    where is_matched

),

-- materialized: the pairs shown are chosen before the joins, which then build on them alone. Filtered after them (an OR
-- with the confirmed ones' IN is not pushed below a join), every pair was joined with both sides' values: at 10M that
-- ran out of memory under reconcile's limit.
pairs as materialized (

    select * from int_recon_pairs_compared
    where is_cost_mismatch
        or is_price_mismatch
        or is_currency_mismatch
        or is_product_mismatch
        or is_canceled_but_booked
        or is_refunded_not_reversed
        or is_cutoff
        or transaction_id in (select transaction_id from confirmed)

),

ledger as (

    select * from int_ledger__orders_classified

),

sales as (

    select * from int_provider__sales_classified

),

final as (

    select
        pairs.*,
        ledger.product_id as ledger_product_id,
        sales.product_id as provider_product_id,
        ledger.sales_price as ledger_sales_price,
        sales.sales_price as provider_sales_price,
        ledger.expected_cost,
        sales.partner_cost_price,
        sales.partner_cost_price - ledger.expected_cost as cost_difference,
        sales.sales_price - ledger.sales_price as price_difference,
        sales.currency_code as provider_currency_code,
        ledger.order_status,
        ledger.is_active,
        sales.status,
        sales.status_class,
        sales.is_billable,
        ledger.paid_at,
        ledger.paid_local_date,
        ledger.paid_period,
        ledger.is_in_period as ledger_in_period,
        sales.transaction_at,
        sales.transaction_local_date,
        sales.transaction_period,
        sales.is_in_period as provider_in_period,
        sales.key_last4,
        ledger.ledger_source,
        sales.transaction_date_raw

    -- left joins: every pair has its line and its sale (int_recon_pairs_compared was made of these two). An inner
    -- join on an id whose values span at most 2^20 lets DuckDB build a "perfect" hash table, one slot per id in the
    -- range for every column, outside its memory limit: here ~1M slots for ~33k pairs, +240 MB at 1M.
    from pairs
    left join ledger
        on ledger.ledger_line_id = pairs.ledger_line_id
    left join sales
        on sales.transaction_id = pairs.transaction_id

)

select * from final
