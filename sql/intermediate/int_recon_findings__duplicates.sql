-- The "duplicates" family: a reference with more than one ledger line or more than one provider transaction
-- (duplicate_reference, one finding per reference, with both sides' counts and costs). One row per reference, in
-- the columns every int_recon_findings__<family> model shares (int_recon_findings_detected unions them).
with

classified as (

    select * from int_recon_rows_classified

),

ledger as (

    select * from int_ledger__orders_classified

),

sales as (

    select * from int_provider__sales_classified

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
            || ', ' || provider_sales || ' provider transaction(s)' || coalesce(' (' || transaction_ids || ')', '') as
                details,
        ledger_sources as ledger_source,
        cast(null as varchar) as status,
        cast(null as varchar) as status_class,
        cast(null as varchar) as order_status,
        transaction_at,
        paid_at,
        cast(null as varchar) as key_last4,
        cast(null as integer) as age_days

    from duplicate_groups

)

select * from duplicate_reference
