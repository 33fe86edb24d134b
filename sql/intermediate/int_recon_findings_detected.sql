-- One row per finding of the period: a finding type about one reference (and one sale when it is about
-- one), with the values compared. Identity: finding_id = md5(period|type|reference|transaction_id).
-- Each family's rules live in its own model, int_recon_findings__<family>; this one unions them and adds the
-- identity, the family (from the registry of finding types, cfg_exception_types) and the aging bucket. A type
-- not in the registry gets no family, and the data test finding_types_accepted fails the run.
with

params as (

    select * from cfg_params

),

finding_types as (

    select * from cfg_exception_types

),

unioned as (

    select * from int_recon_findings__missing
    union all by name
    select * from int_recon_findings__amounts
    union all by name
    select * from int_recon_findings__status
    union all by name
    select * from int_recon_findings__cutoff
    union all by name
    select * from int_recon_findings__duplicates
    union all by name
    select * from int_recon_findings__unredeemed

),

final as (

    select
        md5(params.period || '|' || unioned.exception_type || '|' || unioned.group_key || '|'
            || coalesce(cast(unioned.transaction_id as varchar), '')) as finding_id,
        unioned.*,
        finding_types.family,
        case
            when unioned.age_days is null then null
            when unioned.age_days <= 7 then '0-7'
            when unioned.age_days <= 30 then '8-30'
            when unioned.age_days <= 90 then '31-90'
            else '90+'
        end as aging_bucket

    from unioned
    cross join params
    left join finding_types
        on finding_types.exception_type = unioned.exception_type

)

select * from final
