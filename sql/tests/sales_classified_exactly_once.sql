-- Conservation: every provider sale lands in exactly one match class. Fails with the sales that do not.
with

sales as (

    select transaction_id from sales

),

classified as (

    select transaction_id, match_class from int_recon_rows_classified
    where side = 'provider'

),

final as (

    select
        sales.transaction_id,
        count(classified.match_class) as classes,
        string_agg(classified.match_class, ', ') as match_classes

    from sales
    left join classified
        on classified.transaction_id = sales.transaction_id
    group by all
    having count(classified.match_class) <> 1

)

select * from final
