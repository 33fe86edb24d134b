-- Every finding has one of interface.md's exception types and its family.
with

final as (

    select finding_id, exception_type, family, partner_reference from recon_exceptions
    where family is null
        or exception_type not in (
            'missing_at_provider', 'missing_in_ledger', 'cost_mismatch', 'price_mismatch', 'currency_mismatch',
            'product_mismatch', 'unredeemed_key', 'duplicate_reference', 'canceled_but_booked',
            'refunded_not_reversed', 'cutoff_difference', 'unknown_status'
        )

)

select * from final
