-- One row per provider sale (transactionId): trimmed reference, status class through reconciliation.statusMap,
-- exact money, and the sale's local date and period in the configured time zone.
with

params as (

    select * from cfg_params

),

status_map as (

    select * from cfg_status_map

),

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
        -- the configured map decides, not the class stored at load time: the map may have changed since
        coalesce(status_map.status_class, 'unknown') as status_class,
        sales.transaction_at,
        sales.transaction_date_raw,
        upper(trim(sales.sales_currency_code)) as currency_code,
        sales.country_code,
        -- a PIN of 4 characters or fewer would leave whole: keep nothing of it
        case when length(sales.key) > 4 then right(sales.key, 4) end as key_last4,
        sales.key_sent_to_customer,
        cast(timezone(params.timezone, sales.transaction_at) as date) as transaction_local_date

    from source as sales
    cross join params
    left join status_map
        on trim(sales.status) = status_map.status

),

final as (

    select
        renamed.*,
        strftime(renamed.transaction_local_date, '%Y-%m') as transaction_period,
        coalesce(renamed.transaction_local_date between params.period_start and params.period_end, false) as is_in_period,
        -- a canceled sale is not billed; an unknown status is billed until someone says otherwise
        renamed.status_class <> 'canceled' as is_billable

    from renamed
    cross join params

)

select * from final
