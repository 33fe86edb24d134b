-- One row per provider sale (transactionId), renamed and cast: trimmed reference, exact money, the PIN's last 4
-- characters. Status classes and the sale's local date and period are int_provider__sales_classified's job.
-- materialized: view
with

source as (

    select * from sales

),

renamed as (

    select
        sales.transaction_id,
        nullif(trim(sales.partner_reference), '') as partner_reference,
        sales.partner_reference as partner_reference_raw,
        sales.product_id,
        sales.product_name,
        cast(sales.sales_price as decimal(18, 4)) as sales_price,
        cast(sales.partner_cost_price as decimal(18, 4)) as partner_cost_price,
        sales.status,
        sales.transaction_at,
        sales.transaction_date_raw,
        upper(trim(sales.sales_currency_code)) as currency_code,
        sales.country_code,
        -- a PIN of 4 characters or fewer would leave whole: keep nothing of it
        case when length(sales.key) > 4 then right(sales.key, 4) end as key_last4,
        sales.key_sent_to_customer

    from source as sales

)

select * from renamed
