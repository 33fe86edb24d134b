-- One row per accepted ledger line: trimmed reference, exact money, normalized status, and the local
-- date and period the order was paid in, in the configured time zone.
with

params as (

    select * from cfg_params

),

source as (

    select * from ledger

),

renamed as (

    select
        ledger.file_hash || ':' || ledger.source_line as ledger_line_id,
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
        lower(trim(ledger.order_status)) as order_status,
        cast(timezone(params.timezone, ledger.paid_at) as date) as paid_local_date

    from source as ledger
    cross join params

),

final as (

    select
        renamed.*,
        strftime(renamed.paid_local_date, '%Y-%m') as paid_period,
        renamed.paid_local_date between params.period_start and params.period_end as is_in_period,
        -- only paid orders are owed to the provider; refunded and canceled ones should have been reversed
        renamed.order_status = 'paid' as is_active

    from renamed
    cross join params

)

select * from final
