-- Conservation: every ledger line (file hash + line) is loaded once and lands in exactly one match class.
-- Fails with the lines that do not: `copies` > 1 is a line loaded twice, `classes` <> 1 a line lost or doubled.
with

ledger as (

    select
        file_hash || ':' || source_line as ledger_line_id,
        source_file,
        source_line,
        count(*) as copies

    from ledger
    group by all

),

classified as (

    select
        ledger_line_id,
        count(*) as classes,
        string_agg(match_class, ', ') as match_classes

    from int_recon_rows_classified
    where side = 'ledger'
    group by ledger_line_id

),

final as (

    select
        ledger.source_file,
        ledger.source_line,
        ledger.copies,
        coalesce(classified.classes, 0) as classes,
        classified.match_classes

    from ledger
    left join classified
        on classified.ledger_line_id = ledger.ledger_line_id
    where ledger.copies <> 1
        or coalesce(classified.classes, 0) <> 1

)

select * from final
