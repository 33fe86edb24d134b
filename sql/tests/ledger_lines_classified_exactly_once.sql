-- Conservation: every ledger line (file hash + line) is loaded once and lands in exactly one match class — the lines
-- of the period's scope here, every other one out_of_period by not being listed. Fails with the lines that do not:
-- `copies` > 1 is a line loaded twice, `classes` > 1 a line doubled, `classes` = 0 a line of the period (paid in it,
-- or sharing its trimmed reference with a row of the period) that was lost. Only integer keys are grouped over all
-- lines (a million of them must not need much memory); texts are gathered for the failing lines alone.
with

params as (

    select * from cfg_params

),

ledger as (

    -- the models' line id is the row's place in the table (stg_ledger__orders); a line is its file and line
    select rowid as ledger_line_id, file_hash, source_file, source_line, partner_reference, paid_at
    from ledger

),

copied_lines as (

    select file_hash, source_line
    from ledger
    group by file_hash, source_line
    having count(*) > 1

),

classes as (

    select ledger_line_id, count(*) as classes
    from int_recon_rows_classified
    where side = 'ledger'
    group by ledger_line_id

),

period_references as (

    select partner_reference from int_recon_rows_classified
    where is_in_period and partner_reference is not null

),

failing as (

    select ledger.ledger_line_id
    from ledger
    cross join params
    left join classes
        on classes.ledger_line_id = ledger.ledger_line_id
    where classes.classes > 1
        or classes.ledger_line_id is null
            -- the local date worked out only within a day of the period in UTC, which holds it in any zone
            and (ledger.paid_at >= timezone('UTC', cast(params.period_start - 1 as timestamp))
                and ledger.paid_at < timezone('UTC', cast(params.period_end + 2 as timestamp))
                and cast(timezone(params.timezone, ledger.paid_at) as date) between params.period_start and
                    params.period_end
                or nullif(trim(ledger.partner_reference), '') in (select partner_reference from period_references))

    union

    select ledger.ledger_line_id
    from ledger
    semi join copied_lines
        on copied_lines.file_hash = ledger.file_hash
        and copied_lines.source_line = ledger.source_line

),

failing_classes as (

    select ledger_line_id, match_class
    from int_recon_rows_classified
    where side = 'ledger'
        and ledger_line_id in (select ledger_line_id from failing)

),

final as (

    select
        any_value(ledger.source_file) as source_file,
        ledger.source_line,
        count(distinct ledger.ledger_line_id) as copies,
        count(failing_classes.match_class) as classes,
        string_agg(failing_classes.match_class, ', ') as match_classes

    from ledger
    semi join failing
        on failing.ledger_line_id = ledger.ledger_line_id
    left join failing_classes
        on failing_classes.ledger_line_id = ledger.ledger_line_id
    group by ledger.file_hash, ledger.source_line

)

select * from final
