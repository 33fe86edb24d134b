-- One row per trimmed partner reference that the provider returned in a record pinrecon could not load
-- (see sales_quarantine), with the reasons: a ledger order that only such a record answers is not silently
-- "missing" — its finding says where the provider's record is.
with

source as (

    select * from sales_quarantine

),

renamed as (

    select
        -- raw is the record as received: it may not even be JSON
        nullif(trim(case when json_valid(source.raw) then json_extract_string(source.raw, '$.partnerReference') end),
            '')
            as partner_reference,
        source.transaction_id,
        source.reason,
        source.landing_path

    from source

),

final as (

    select
        partner_reference,
        count(*) as records,
        string_agg(distinct reason, '; ' order by reason) as reasons,
        min(landing_path) as landing_path

    from renamed
    where partner_reference is not null
    group by partner_reference

)

select * from final
