-- Conservation: every provider sale lands in exactly one match class — the sales of the period's scope here, every
-- other one out_of_period by not being listed. Fails with a sale classified twice, and with an unlisted sale that
-- belongs to the period: dated in it (local date, recomputed here from the stored sale) or sharing its trimmed
-- reference with a row of the period. Only integer keys are grouped over all sales; texts for the failing ones.
with

params as (

    select * from cfg_params

),

classes as (

    select transaction_id, count(*) as classes
    from int_recon_rows_classified
    where side = 'provider'
    group by transaction_id

),

period_references as (

    select partner_reference from int_recon_rows_classified
    where is_in_period and partner_reference is not null

),

failing as (

    select transaction_id, classes from classes
    where classes <> 1

    union all

    select sales.transaction_id, 0 as classes
    from sales
    cross join params
    anti join classes
        on classes.transaction_id = sales.transaction_id
    -- the local date is worked out only within a day of the period in UTC, which holds it in any zone: the history
    -- outside it, which grows with every month kept, is passed over (0.26 CPU-s for 0.7M sales at 1M). Not wrapped
    -- in coalesce(…, false): in a WHERE a NULL (no date) is not kept either, and as a function's argument the three
    -- conditions were all worked out for every sale (this test 0.37 → 0.24 s at 1M)
    where sales.transaction_at >= timezone('UTC', cast(params.period_start - 1 as timestamp))
            and sales.transaction_at < timezone('UTC', cast(params.period_end + 2 as timestamp))
            and cast(timezone(params.timezone, sales.transaction_at) as date)
                between params.period_start and params.period_end
        or nullif(trim(sales.partner_reference), '') in (select partner_reference from period_references)

),

final as (

    select
        failing.transaction_id,
        failing.classes,
        (select string_agg(match_class, ', ') from int_recon_rows_classified as classified
         where classified.side = 'provider' and classified.transaction_id = failing.transaction_id) as match_classes

    from failing

)

select * from final
