-- A finding is identified by finding_id within its period: no two rows share one.
with

final as (

    select finding_id, count(*) as rows, min(exception_type) as exception_type, min(partner_reference) as
        partner_reference
    from recon_exceptions
    group by finding_id
    having count(*) > 1

)

select * from final
