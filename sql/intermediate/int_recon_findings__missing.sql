-- The "missing" family: a paid ledger order of the period that no provider sale answers (missing_at_provider),
-- and a billable provider sale of the period that no ledger order answers (missing_in_ledger). One row per finding,
-- in the columns every int_recon_findings__<family> model shares (int_recon_findings_detected unions them), plus
-- `proof`: how the provider's having no sale for a missing_at_provider order was proven (README "Proof of
-- absence") — by the stored by-creation windows, by this run's individual look-up, or not at all (unproven).
-- And reference_mismatch (issue 29): a confirmed suggested match, now a matched pair whose two sides carry
-- different references (ledger_value_text, provider_value_text); the pair rules apply to it as to any pair.
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

quarantined as (

    select * from stg_provider__quarantined_references

),

coverage as (

    select * from int_provider__created_coverage

),

lookups as (

    select * from stg_provider__lookups

),

pairs as (

    select * from int_recon_pairs_flagged

),

confirmed as (

    select * from int_recon_match_decided
    where is_matched

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
            || coalesce('. The provider did return ' || quarantined.records ||
                ' record(s) with this reference that could not be loaded ('
                || quarantined.reasons || '): see sales_quarantine', '') as details,
        ledger.ledger_source,
        cast(null as varchar) as status,
        cast(null as varchar) as status_class,
        ledger.order_status,
        cast(null as timestamptz) as transaction_at,
        ledger.paid_at,
        cast(null as varchar) as key_last4,
        cast(null as integer) as age_days,
        case
            -- the windows hold every sale created since historyStart: none carries it (a record the provider
            -- returned for it but that could not be loaded is something, not nothing)
            when coverage.proves_absence and quarantined.partner_reference is null then 'windows'
            when lookups.found = false then 'lookup'
            else 'unproven'
        end as proof

    from ledger
    inner join classified
        on classified.side = 'ledger'
        and classified.ledger_line_id = ledger.ledger_line_id
    cross join coverage
    left join quarantined
        on quarantined.partner_reference = ledger.partner_reference
    left join lookups
        on lookups.partner_reference = ledger.partner_reference
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
        cast(null as integer) as age_days,
        cast(null as varchar) as proof

    from sales
    inner join classified
        on classified.side = 'provider'
        and classified.transaction_id = sales.transaction_id
    where classified.match_class = 'provider_only'
        and sales.is_billable

),

reference_mismatch as (

    select
        'reference_mismatch' as exception_type,
        pairs.partner_reference as group_key,
        pairs.partner_reference,
        pairs.transaction_id,
        pairs.ledger_product_id as product_id,
        -- ledger_value and provider_value are DECIMAL, money findings' amounts (analysts sum and compare them): the
        -- two references are the text values, ledger_value_text and provider_value_text (docs/DATA.md, issue 29)
        cast(null as decimal(18, 4)) as ledger_value,
        cast(null as decimal(18, 4)) as provider_value,
        cast(null as decimal(18, 4)) as difference,
        pairs.partner_reference as ledger_value_text,
        confirmed.provider_reference as provider_value_text,
        pairs.ledger_currency_code as currency_code,
        'confirmed suggested match ' || confirmed.suggestion_id || ': ledger reference ' || pairs.partner_reference
            || ', provider reference ' || confirmed.provider_reference as details,
        pairs.ledger_source,
        pairs.status,
        pairs.status_class,
        pairs.order_status,
        pairs.transaction_at,
        pairs.paid_at,
        pairs.key_last4,
        cast(null as integer) as age_days,
        cast(null as varchar) as proof

    from pairs
    inner join confirmed
        on confirmed.transaction_id = pairs.transaction_id

),

final as (

    select * from missing_at_provider
    union all by name
    select * from missing_in_ledger
    union all by name
    select * from reference_mismatch

)

select * from final
