-- One summary row per currency of the period.
with

final as (

    select currency_code, count(*) as rows from recon_summary
    group by currency_code
    having count(*) > 1

)

select * from final
