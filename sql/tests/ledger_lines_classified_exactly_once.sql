-- Conservation: every ledger line lands in exactly one match class. Fails with the lines that do not.
with

ledger as (

    select file_hash || ':' || source_line as ledger_line_id, source_file, source_line from ledger

),

classified as (

    select ledger_line_id, match_class from int_recon_rows_classified
    where side = 'ledger'

),

final as (

    select
        ledger.source_file,
        ledger.source_line,
        count(classified.match_class) as classes,
        string_agg(classified.match_class, ', ') as match_classes

    from ledger
    left join classified
        on classified.ledger_line_id = ledger.ledger_line_id
    group by all
    having count(classified.match_class) <> 1

)

select * from final
