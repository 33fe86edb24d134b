-- The "cutoff" family: a matched pair whose ledger payment and provider transaction fall in different local
-- months (cutoff_difference; reported in both). One row per pair, in the columns every
-- int_recon_findings__<family> model shares (int_recon_findings_detected unions them).
with

pairs as (

    select * from int_recon_pairs_flagged
    where is_cutoff

),

final as (

    select
        'cutoff_difference' as exception_type,
        pairs.partner_reference as group_key,
        pairs.partner_reference,
        pairs.transaction_id,
        pairs.ledger_product_id as product_id,
        cast(null as decimal(18, 4)) as ledger_value,
        cast(null as decimal(18, 4)) as provider_value,
        cast(null as decimal(18, 4)) as difference,
        pairs.ledger_currency_code as currency_code,
        'ledger paid ' || pairs.paid_local_date || ' (' || pairs.paid_period || '), provider transaction '
            || coalesce(cast(pairs.transaction_local_date as varchar) || ' (' || pairs.transaction_period || ')',
                        'date unreadable: ' || coalesce(pairs.transaction_date_raw, 'none')) as details,
        pairs.ledger_source,
        pairs.status,
        pairs.status_class,
        pairs.order_status,
        pairs.transaction_at,
        pairs.paid_at,
        pairs.key_last4,
        cast(null as integer) as age_days

    from pairs
    where pairs.is_cutoff

)

select * from final
