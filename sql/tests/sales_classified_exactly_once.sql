-- Conservation: every provider sale lands in exactly one match class. Fails with the sales that do not.
with

sales as (

    select transaction_id from sales

),

classified as (

    select
        transaction_id,
        count(*) as classes,
        string_agg(match_class, ', ') as match_classes

    from int_recon_rows_classified
    where side = 'provider'
    group by transaction_id

),

final as (

    select
        sales.transaction_id,
        coalesce(classified.classes, 0) as classes,
        classified.match_classes

    from sales
    left join classified
        on classified.transaction_id = sales.transaction_id
    where coalesce(classified.classes, 0) <> 1

)

select * from final
