-- One row per finding of the period: an exception type about one reference (and one sale when it is about
-- one), with the values compared. Identity: finding_id = md5(period|type|reference|transaction_id).
with

params as (

    select * from cfg_params

),

classified as (

    select * from int_recon_rows_classified

),

ledger as (

    select * from stg_ledger__orders

),

sales as (

    select * from stg_provider__sales

),

pairs as (

    select * from int_recon_pairs_compared

),

quarantined as (

    select * from stg_provider__quarantined_references

),

missing_at_provider as (

    select
        'missing_at_provider' as exception_type,
        classified.group_key,
        ledger.partner_reference,
        cast(null as bigint) as transaction_id,
        ledger.product_id,
        ledger.expected_cost as ledger_value,
        cast(null as decimal(18, 4)) as provider_value,
        -ledger.expected_cost as difference,
        ledger.currency_code,
        'paid ledger order has no provider sale; expected cost '
            || ledger.expected_cost || ' ' || ledger.currency_code
            || coalesce('. The provider did return ' || quarantined.records || ' record(s) with this reference that could not be loaded ('
                || quarantined.reasons || '): see sales_quarantine', '') as details,
        ledger.ledger_source,
        cast(null as varchar) as status,
        cast(null as varchar) as status_class,
        ledger.order_status,
        cast(null as timestamptz) as transaction_at,
        ledger.paid_at,
        cast(null as varchar) as key_last4,
        cast(null as integer) as age_days

    from ledger
    inner join classified
        on classified.side = 'ledger'
        and classified.ledger_line_id = ledger.ledger_line_id
    left join quarantined
        on quarantined.partner_reference = ledger.partner_reference
    where classified.match_class = 'ledger_only'
        and ledger.is_active

),

missing_in_ledger as (

    select
        'missing_in_ledger' as exception_type,
        classified.group_key,
        sales.partner_reference,
        sales.transaction_id,
        sales.product_id,
        cast(null as decimal(18, 4)) as ledger_value,
        sales.partner_cost_price as provider_value,
        sales.partner_cost_price as difference,
        sales.currency_code,
        'provider sale (' || sales.status || ') has no ledger order; cost '
            || sales.partner_cost_price || ' ' || coalesce(sales.currency_code, '?') as details,
        cast(null as varchar) as ledger_source,
        sales.status,
        sales.status_class,
        cast(null as varchar) as order_status,
        sales.transaction_at,
        cast(null as timestamptz) as paid_at,
        sales.key_last4,
        cast(null as integer) as age_days

    from sales
    inner join classified
        on classified.side = 'provider'
        and classified.transaction_id = sales.transaction_id
    where classified.match_class = 'provider_only'
        and sales.is_billable

),

flagged_pairs as (

    select * from pairs
    where is_cost_mismatch or is_price_mismatch or is_currency_mismatch or is_product_mismatch
        or is_canceled_but_booked or is_refunded_not_reversed or is_cutoff

),

pair_rules as (

    select * from (values
        ('cost_mismatch'), ('price_mismatch'), ('currency_mismatch'), ('product_mismatch'),
        ('canceled_but_booked'), ('refunded_not_reversed'), ('cutoff_difference')
    ) as rules (exception_type)

),

pair_findings as (

    select
        pair_rules.exception_type,
        pairs.partner_reference as group_key,
        pairs.partner_reference,
        pairs.transaction_id,
        pairs.ledger_product_id as product_id,
        case pair_rules.exception_type
            when 'cost_mismatch' then pairs.expected_cost
            when 'price_mismatch' then pairs.ledger_sales_price
        end as ledger_value,
        case pair_rules.exception_type
            when 'cost_mismatch' then pairs.partner_cost_price
            when 'price_mismatch' then pairs.provider_sales_price
        end as provider_value,
        case pair_rules.exception_type
            when 'cost_mismatch' then pairs.cost_difference
            when 'price_mismatch' then pairs.price_difference
        end as difference,
        pairs.ledger_currency_code as currency_code,
        case pair_rules.exception_type
            when 'cost_mismatch' then
                'expected cost ' || pairs.expected_cost || ', provider cost ' || pairs.partner_cost_price
            when 'price_mismatch' then
                'ledger sales price ' || pairs.ledger_sales_price || ', provider sales price ' || pairs.provider_sales_price
            when 'currency_mismatch' then
                'ledger currency ' || coalesce(pairs.ledger_currency_code, '?')
                || ', provider currency ' || coalesce(pairs.provider_currency_code, '?')
            when 'product_mismatch' then
                'ledger product ' || pairs.ledger_product_id
                || ', provider product ' || coalesce(cast(pairs.provider_product_id as varchar), '?')
            when 'canceled_but_booked' then
                'provider status "' || pairs.status || '" (canceled) while the ledger order is paid'
            when 'refunded_not_reversed' then
                'ledger order ' || pairs.order_status || ' while the provider sale is "' || pairs.status
                || '" (' || pairs.status_class || ')'
            when 'cutoff_difference' then
                'ledger paid ' || pairs.paid_local_date || ' (' || pairs.paid_period || '), provider transaction '
                || coalesce(cast(pairs.transaction_local_date as varchar) || ' (' || pairs.transaction_period || ')',
                            'date unreadable: ' || coalesce(pairs.transaction_date_raw, 'none'))
        end as details,
        pairs.ledger_source,
        pairs.status,
        pairs.status_class,
        pairs.order_status,
        pairs.transaction_at,
        pairs.paid_at,
        pairs.key_last4,
        cast(null as integer) as age_days

    from flagged_pairs as pairs
    cross join pair_rules
    where case pair_rules.exception_type
        when 'cost_mismatch' then pairs.is_cost_mismatch
        when 'price_mismatch' then pairs.is_price_mismatch
        when 'currency_mismatch' then pairs.is_currency_mismatch
        when 'product_mismatch' then pairs.is_product_mismatch
        when 'canceled_but_booked' then pairs.is_canceled_but_booked
        when 'refunded_not_reversed' then pairs.is_refunded_not_reversed
        when 'cutoff_difference' then pairs.is_cutoff
    end

),

duplicate_rows as (

    select * from classified
    where match_class = 'duplicate'

),

duplicate_ledger as (

    select
        duplicate_rows.group_key,
        count(*) as ledger_lines,
        sum(ledger.expected_cost) filter (where ledger.is_active) as ledger_cost,
        min(ledger.currency_code) as currency_code,
        min(ledger.product_id) as product_id,
        string_agg(ledger.ledger_source, ', ' order by ledger.ledger_source) as ledger_sources,
        min(ledger.paid_at) as paid_at

    from duplicate_rows
    inner join ledger
        on ledger.ledger_line_id = duplicate_rows.ledger_line_id
    group by duplicate_rows.group_key

),

duplicate_sales as (

    select
        duplicate_rows.group_key,
        count(*) as provider_sales,
        sum(sales.partner_cost_price) filter (where sales.is_billable) as provider_cost,
        min(sales.currency_code) as currency_code,
        min(sales.product_id) as product_id,
        string_agg(cast(sales.transaction_id as varchar), ', ' order by sales.transaction_id) as transaction_ids,
        min(sales.transaction_at) as transaction_at

    from duplicate_rows
    inner join sales
        on sales.transaction_id = duplicate_rows.transaction_id
    group by duplicate_rows.group_key

),

duplicate_groups as (

    select
        coalesce(duplicate_ledger.group_key, duplicate_sales.group_key) as group_key,
        coalesce(duplicate_ledger.ledger_lines, 0) as ledger_lines,
        coalesce(duplicate_sales.provider_sales, 0) as provider_sales,
        duplicate_ledger.ledger_cost,
        duplicate_sales.provider_cost,
        coalesce(duplicate_ledger.currency_code, duplicate_sales.currency_code) as currency_code,
        coalesce(duplicate_ledger.product_id, duplicate_sales.product_id) as product_id,
        duplicate_ledger.ledger_sources,
        duplicate_sales.transaction_ids,
        duplicate_ledger.paid_at,
        duplicate_sales.transaction_at

    from duplicate_ledger
    full outer join duplicate_sales
        on duplicate_sales.group_key = duplicate_ledger.group_key

),

duplicate_reference as (

    select
        'duplicate_reference' as exception_type,
        group_key,
        group_key as partner_reference,
        cast(null as bigint) as transaction_id,
        product_id,
        ledger_cost as ledger_value,
        provider_cost as provider_value,
        coalesce(provider_cost, 0) - coalesce(ledger_cost, 0) as difference,
        currency_code,
        ledger_lines || ' ledger line(s)' || coalesce(' (' || ledger_sources || ')', '')
            || ', ' || provider_sales || ' provider transaction(s)' || coalesce(' (' || transaction_ids || ')', '') as details,
        ledger_sources as ledger_source,
        cast(null as varchar) as status,
        cast(null as varchar) as status_class,
        cast(null as varchar) as order_status,
        transaction_at,
        paid_at,
        cast(null as varchar) as key_last4,
        cast(null as integer) as age_days

    from duplicate_groups

),

period_sales as (

    select
        sales.*,
        classified.group_key,
        date_diff('day', sales.transaction_local_date, params.as_of) as age_days,
        params.unredeemed_after_days

    from sales
    inner join classified
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

),

unknown_status as (

    select
        'unknown_status' as exception_type,
        group_key,
        partner_reference,
        transaction_id,
        product_id,
        cast(null as decimal(18, 4)) as ledger_value,
        cast(null as decimal(18, 4)) as provider_value,
        cast(null as decimal(18, 4)) as difference,
        currency_code,
        'provider status "' || coalesce(status, '') || '" is not in reconciliation.statusMap' as details,
        cast(null as varchar) as ledger_source,
        status,
        status_class,
        cast(null as varchar) as order_status,
        transaction_at,
        cast(null as timestamptz) as paid_at,
        key_last4,
        cast(null as integer) as age_days

    from period_sales
    where status_class = 'unknown'

),

unioned as (

    select * from missing_at_provider
    union all by name
    select * from missing_in_ledger
    union all by name
    select * from pair_findings
    union all by name
    select * from duplicate_reference
    union all by name
    select * from unredeemed_key
    union all by name
    select * from unknown_status

),

final as (

    select
        md5(params.period || '|' || unioned.exception_type || '|' || unioned.group_key || '|'
            || coalesce(cast(unioned.transaction_id as varchar), '')) as finding_id,
        unioned.*,
        case unioned.exception_type
            when 'missing_at_provider' then 'missing'
            when 'missing_in_ledger' then 'missing'
            when 'cost_mismatch' then 'amounts'
            when 'price_mismatch' then 'amounts'
            when 'currency_mismatch' then 'amounts'
            when 'product_mismatch' then 'amounts'
            when 'canceled_but_booked' then 'status'
            when 'refunded_not_reversed' then 'status'
            when 'unknown_status' then 'status'
            when 'duplicate_reference' then 'duplicates'
            when 'cutoff_difference' then 'cutoff'
            when 'unredeemed_key' then 'unredeemed'
        end as family,
        case
            when unioned.age_days is null then null
            when unioned.age_days <= 7 then '0-7'
            when unioned.age_days <= 30 then '8-30'
            when unioned.age_days <= 90 then '31-90'
            else '90+'
        end as aging_bucket

    from unioned
    cross join params

)

select * from final
