-- Every staged sale has an accepted status class (statusMap values, or unknown).
with

final as (

    select transaction_id, status, status_class from int_provider__sales_classified
    where status_class is null
        or status_class not in ('redeemed', 'canceled', 'booked', 'unknown')

)

select * from final
