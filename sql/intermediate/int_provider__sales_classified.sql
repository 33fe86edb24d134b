-- One row per provider sale (transactionId) of the period's scope: the staged sale with its status class through
-- reconciliation.statusMap, and its local date and period in the configured time zone. A sale of a confirmed
-- suggested match carries the ledger order's reference, so every model matches the two (issue 29).
with

params as (

    select * from cfg_params

),

status_map as (

    select * from cfg_status_map

),

scope as (

    select * from int_recon_scope_references

),

confirmed as (

    select * from int_recon_match_decided
    where is_matched

),

sales as (

    -- the rows of the period's scope (int_recon_scope_references): a reference of the period's days, or no
    -- reference and dated within a day of the period
    select staged.*
    from stg_provider__sales as staged
    cross join cfg_params as params
    where staged.partner_reference in (select partner_reference from scope)
        or staged.partner_reference is null
            and staged.transaction_at >= params.scope_starts_at
            and staged.transaction_at < params.scope_ends_at

),

mapped as (

    select
        -- what no later model reads (product name, raw reference, country) stays in the staging view
        sales.transaction_id,
        coalesce(confirmed.ledger_reference, sales.partner_reference) as partner_reference,
        sales.product_id,
        sales.sales_price,
        sales.partner_cost_price,
        sales.status,
        -- the configured map decides, not the class stored at load time: the map may have changed since
        coalesce(status_map.status_class, 'unknown') as status_class,
        sales.transaction_at,
        sales.transaction_date_raw,
        sales.currency_code,
        sales.key_last4,
        sales.key_sent_to_customer,
        cast(timezone(params.timezone, sales.transaction_at) as date) as transaction_local_date

    from sales
    cross join params
    left join status_map
        on trim(sales.status) = status_map.status
    left join confirmed
        on confirmed.transaction_id = sales.transaction_id

),

final as (

    select
        mapped.*,
        strftime(mapped.transaction_local_date, '%Y-%m') as transaction_period,
        coalesce(mapped.transaction_local_date between params.period_start and params.period_end, false) as
            is_in_period,
        -- a canceled sale is not billed; an unknown status is billed until someone says otherwise
        mapped.status_class <> 'canceled' as is_billable

    from mapped
    cross join params

)

select * from final
