-- Every missing_at_provider finding says how absence was proven (windows | lookup | unproven); no other type has a
-- proof.
with

final as (

    select finding_id, exception_type, partner_reference, proof from recon_exceptions
    where (exception_type = 'missing_at_provider') <> coalesce(proof in ('windows', 'lookup', 'unproven'), false)

)

select * from final
