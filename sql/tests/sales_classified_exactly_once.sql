-- Conservation: every provider sale lands in exactly one match class — the sales of the period's scope here, every
-- other one out_of_period by not being listed. Fails with a sale classified twice, and with an unlisted sale that
-- belongs to the period: dated in it (local date, recomputed here from the stored sale) or sharing its trimmed
-- reference with a row of the period.
with

params as (

    select * from cfg_params

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

period_references as (

    select partner_reference from int_recon_rows_classified
    where is_in_period and partner_reference is not null

),

unlisted as (

    select sales.transaction_id, sales.partner_reference, sales.transaction_at
    from sales
    anti join classified
        on classified.transaction_id = sales.transaction_id

),

final as (

    select transaction_id, classes, match_classes
    from classified
    where classes <> 1

    union all

    select unlisted.transaction_id, 0 as classes, null as match_classes
    from unlisted
    cross join params
    where coalesce(cast(timezone(params.timezone, unlisted.transaction_at) as date)
                between params.period_start and params.period_end, false)
        or nullif(trim(unlisted.partner_reference), '') in (select partner_reference from period_references)

)

select * from final
