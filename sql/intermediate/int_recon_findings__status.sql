-- The "status" family: a matched pair whose two sides disagree on whether the sale stands (canceled_but_booked,
-- refunded_not_reversed), and a sale of the period whose status reconciliation.statusMap does not know
-- (unknown_status). One row per finding, in the columns every int_recon_findings__<family> model shares
-- (int_recon_findings_detected unions them).
with

classified as (

    select * from int_recon_rows_classified

),

sales as (

    select * from int_provider__sales_classified

),

pairs as (

    select * from int_recon_pairs_flagged
    where is_canceled_but_booked or is_refunded_not_reversed

),

pair_rules as (

    select * from (values
        ('canceled_but_booked'), ('refunded_not_reversed')
    ) as rules (exception_type)

),

pair_findings as (

    select
        pair_rules.exception_type,
        pairs.partner_reference as group_key,
        pairs.partner_reference,
        pairs.transaction_id,
        pairs.ledger_product_id as product_id,
        cast(null as decimal(18, 4)) as ledger_value,
        cast(null as decimal(18, 4)) as provider_value,
        cast(null as decimal(18, 4)) as difference,
        pairs.ledger_currency_code as currency_code,
        case pair_rules.exception_type
            when 'canceled_but_booked' then
                'provider status "' || pairs.status || '" (canceled) while the ledger order is paid'
            when 'refunded_not_reversed' then
                'ledger order ' || pairs.order_status || ' while the provider sale is "' || pairs.status
                || '" (' || pairs.status_class || ')'
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
        when 'canceled_but_booked' then pairs.is_canceled_but_booked
        when 'refunded_not_reversed' then pairs.is_refunded_not_reversed
    end

),

unknown_status as (

    select
        'unknown_status' as exception_type,
        classified.group_key,
        sales.partner_reference,
        sales.transaction_id,
        sales.product_id,
        cast(null as decimal(18, 4)) as ledger_value,
        cast(null as decimal(18, 4)) as provider_value,
        cast(null as decimal(18, 4)) as difference,
        sales.currency_code,
        'provider status "' || coalesce(sales.status, '') || '" is not in reconciliation.statusMap' as details,
        cast(null as varchar) as ledger_source,
        sales.status,
        sales.status_class,
        cast(null as varchar) as order_status,
        sales.transaction_at,
        cast(null as timestamptz) as paid_at,
        sales.key_last4,
        cast(null as integer) as age_days

    -- left, not inner: every sale of the period is classified once (conservation tests); see int_recon_pairs_flagged
    from sales
    left join classified
        on classified.side = 'provider'
        and classified.transaction_id = sales.transaction_id
    where sales.is_in_period
        and sales.status_class = 'unknown'

),

final as (

    select * from pair_findings
    union all by name
    select * from unknown_status

)

select * from final
