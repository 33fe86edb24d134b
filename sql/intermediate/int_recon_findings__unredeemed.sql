-- The "unredeemed" family: a sale of the period whose key is booked or was not sent to the customer, older than
-- reconciliation.unredeemedAfterDays at as_of (unredeemed_key, with its age). One row per sale, in the columns
-- every int_recon_findings__<family> model shares (int_recon_findings_detected unions them).
with

params as (

    select * from cfg_params

),

classified as (

    select * from int_recon_rows_classified

),

sales as (

    select * from int_provider__sales_classified

),

period_sales as (

    select
        sales.*,
        classified.group_key,
        date_diff('day', sales.transaction_local_date, params.as_of) as age_days,
        params.unredeemed_after_days

    -- left, not inner: every sale of the period is classified once (conservation tests); see int_recon_pairs_flagged
    from sales
    left join classified
        on classified.side = 'provider'
        and classified.transaction_id = sales.transaction_id
    cross join params
    where sales.is_in_period

),

unredeemed_key as (

    select
        'unredeemed_key' as exception_type,
        group_key,
        partner_reference,
        transaction_id,
        product_id,
        cast(null as decimal(18, 4)) as ledger_value,
        partner_cost_price as provider_value,
        cast(null as decimal(18, 4)) as difference,
        currency_code,
        case when status_class = 'booked' then 'key booked, not redeemed' else 'key not sent to the customer' end
            || ' (status "' || status || '", key sent: ' || coalesce(cast(key_sent_to_customer as varchar), '?')
            || '), ' || age_days || ' days old' as details,
        cast(null as varchar) as ledger_source,
        status,
        status_class,
        cast(null as varchar) as order_status,
        transaction_at,
        cast(null as timestamptz) as paid_at,
        key_last4,
        cast(age_days as integer) as age_days

    from period_sales
    -- a canceled sale needs no key; any other (an unknown status too) whose key is booked or unsent is open
    where status_class <> 'canceled'
        and (status_class = 'booked' or key_sent_to_customer = false)
        and age_days > unredeemed_after_days

)

select * from unredeemed_key
