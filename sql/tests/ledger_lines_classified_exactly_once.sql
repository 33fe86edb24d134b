-- Conservation: every ledger line (file hash + line) is loaded once and lands in exactly one match class — the lines
-- of the period's scope here, every other one out_of_period by not being listed. Fails with the lines that do not:
-- `copies` > 1 is a line loaded twice, `classes` > 1 a line doubled, `classes` = 0 a line of the period (paid in it,
-- or sharing its trimmed reference with a row of the period) that was lost.
with

params as (

    select * from cfg_params

),

ledger as (

    -- the models' line id is the row's place in the table (stg_ledger__orders); a line is its file and line
    select
        rowid as ledger_line_id,
        file_hash,
        source_file,
        source_line,
        partner_reference,
        paid_at

    from ledger

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

period_references as (

    select partner_reference from int_recon_rows_classified
    where is_in_period and partner_reference is not null

),

checked as (

    select
        ledger.file_hash,
        ledger.source_file,
        ledger.source_line,
        coalesce(classified.classes, 0) as classes,
        classified.match_classes,
        classified.ledger_line_id is null
            and (cast(timezone(params.timezone, ledger.paid_at) as date) between params.period_start and params.period_end
                or nullif(trim(ledger.partner_reference), '') in (select partner_reference from period_references)) as is_lost

    from ledger
    cross join params
    left join classified
        on classified.ledger_line_id = ledger.ledger_line_id

),

final as (

    select
        source_file,
        source_line,
        count(*) as copies,
        sum(classes) as classes,
        string_agg(match_classes, ', ') as match_classes

    from checked
    group by file_hash, source_file, source_line
    having count(*) <> 1
        or max(classes) > 1
        or bool_or(is_lost)

)

select * from final
