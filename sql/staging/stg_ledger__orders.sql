-- One row per accepted ledger line, renamed and cast: trimmed reference, exact money, normalized status.
-- The local date and period the order was paid in are int_ledger__orders_classified's job.
-- materialized: view
with

source as (

    -- the line's place in the ledger table: an integer joins far faster than file hash + line, and
    -- nothing changes the table while a reconciliation runs
    select rowid as ledger_line_id, * from ledger

),

renamed as (

    select
        ledger.ledger_line_id,
        ledger.source_file || ':' || ledger.source_line as ledger_source,
        nullif(trim(ledger.partner_reference), '') as partner_reference,
        ledger.partner_reference as partner_reference_raw,
        ledger.product_id,
        ledger.paid_at,
        ledger.paid_at_raw,
        cast(ledger.sales_price as decimal(18, 4)) as sales_price,
        cast(ledger.expected_cost as decimal(18, 4)) as expected_cost,
        upper(trim(ledger.currency_code)) as currency_code,
        ledger.country_code,
        lower(trim(ledger.order_status)) as order_status

    from source as ledger

)

select * from renamed
