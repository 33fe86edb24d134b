-- One row per currency and aging bucket of the period: the unredeemed keys (unredeemed_key findings) at as_of,
-- every bucket present (zero when empty) for each currency with provider sales.
with

params as (

    select * from cfg_params

),

summary as (

    select * from recon_summary

),

unredeemed as (

    select * from recon_exceptions
    where exception_type = 'unredeemed_key'

),

buckets as (

    select * from (values (1, '0-7'), (2, '8-30'), (3, '31-90'), (4, '90+')) as buckets (bucket_order, aging_bucket)

),

currencies as (

    select currency_code from summary
    union
    select currency_code from unredeemed

),

bucket_totals as (

    select
        currency_code,
        aging_bucket,
        count(*) as keys,
        sum(provider_value) as cost_total

    from unredeemed
    group by all

),

final as (

    select
        params.period,
        params.as_of,
        currencies.currency_code,
        buckets.aging_bucket,
        coalesce(bucket_totals.keys, 0) as keys,
        cast(coalesce(bucket_totals.cost_total, 0) as decimal(18, 4)) as cost_total,
        params.built_at,
        params.run_id

    from currencies
    cross join buckets
    cross join params
    left join bucket_totals
        on bucket_totals.currency_code is not distinct from currencies.currency_code
        and bucket_totals.aging_bucket = buckets.aging_bucket
    order by currencies.currency_code, buckets.bucket_order

)

select * from final
