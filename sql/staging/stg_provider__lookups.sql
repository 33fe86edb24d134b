-- One row per trimmed partner reference this reconcile run looked up individually (provider_lookups of the run
-- in cfg_params): whether the provider held any record for it. A reference it held nothing for is proven
-- absent by `lookup`; earlier runs' answers prove nothing now (the provider may have created the sale since).
-- materialized: view
with

params as (

    select * from cfg_params

),

source as (

    select * from provider_lookups

),

final as (

    select
        nullif(trim(source.partner_reference), '') as partner_reference,
        bool_or(source.found) as found,
        max(source.asked_at) as asked_at

    from source
    inner join params
        on source.run_id = params.run_id
    group by all

)

select * from final
