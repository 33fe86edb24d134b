-- The matched pairs some pair rule flags (a cost, price, currency, product, status or cutoff difference), with the
-- wide texts the pairs do not carry: the ledger line's place and the raw sale date. The few flagged pairs fetch them
-- here once, for every family model that reports a pair (int_recon_findings__amounts, __status, __cutoff; issue 27).
with

pairs as (

    select * from int_recon_pairs_compared

),

ledger as (

    select * from int_ledger__orders_classified

),

sales as (

    select * from int_provider__sales_classified

),

final as (

    select pairs.*, ledger.ledger_source, sales.transaction_date_raw
    from pairs
    inner join ledger
        on ledger.ledger_line_id = pairs.ledger_line_id
    inner join sales
        on sales.transaction_id = pairs.transaction_id
    where pairs.is_cost_mismatch
        or pairs.is_price_mismatch
        or pairs.is_currency_mismatch
        or pairs.is_product_mismatch
        or pairs.is_canceled_but_booked
        or pairs.is_refunded_not_reversed
        or pairs.is_cutoff

)

select * from final
