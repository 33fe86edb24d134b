-- Every finding has a type of the registry of finding types (cfg_exception_types) and that type's family.
with

finding_types as (

    select * from cfg_exception_types

),

final as (

    select
        recon_exceptions.finding_id,
        recon_exceptions.exception_type,
        recon_exceptions.family,
        recon_exceptions.partner_reference

    from recon_exceptions
    left join finding_types
        on finding_types.exception_type = recon_exceptions.exception_type
    where finding_types.family is null
        or recon_exceptions.family is distinct from finding_types.family

)

select * from final
