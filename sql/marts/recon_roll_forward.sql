-- One row per currency of the period: the roll-forward of its open findings from the previous reconciliation
-- of the period to this one. Open = a finding not decided write_off. open_at_start + new − cleared −
-- written_off (+ remeasured, amounts only) = open_at_end; `check_*` hold the rest, which must be zero
-- (sql/tests/roll_forward_adds_up.sql recomputes open_at_end from the findings themselves).
with

params as (

    select * from cfg_params

),

previous as (

    select * from prev_recon_exceptions

),

current_findings as (

    select * from recon_exceptions

),

current_decisions as (

    select * from cur_recon_decisions

),

-- every finding seen at either end, with its state at the start and at the end
states as (

    select
        coalesce(current_findings.finding_id, previous.finding_id) as finding_id,
        coalesce(current_findings.currency_code, previous.currency_code) as currency_code,
        previous.finding_id is not null as was_present,
        previous.finding_id is not null and coalesce(previous.decision_at_build, '') <> 'write_off' as was_open,
        coalesce(previous.amount, 0) as start_amount,
        current_findings.finding_id is not null as is_present,
        current_findings.finding_id is not null and coalesce(current_decisions.decision, '') <> 'write_off' as is_open,
        coalesce(current_findings.amount, 0) as end_amount

    from current_findings
    full outer join previous
        on previous.finding_id = current_findings.finding_id
    left join current_decisions
        on current_decisions.finding_id = current_findings.finding_id

),

movements as (

    select
        currency_code,
        count(*) filter (where was_open) as open_at_start,
        coalesce(sum(start_amount) filter (where was_open), 0) as open_at_start_amount,
        count(*) filter (where is_present and not was_present) as new,
        coalesce(sum(end_amount) filter (where is_present and not was_present), 0) as new_amount,
        count(*) filter (where was_open and not is_present) as cleared,
        coalesce(sum(start_amount) filter (where was_open and not is_present), 0) as cleared_amount,
        -- net: written off since the start, less written-off findings reopened by a changed decision
        count(*) filter (where is_present and not is_open and (was_open or not was_present))
            - count(*) filter (where is_open and was_present and not was_open) as written_off,
        coalesce(sum(end_amount) filter (where is_present and not is_open and (was_open or not was_present)), 0)
            - coalesce(sum(end_amount) filter (where is_open and was_present and not was_open), 0) as
                written_off_amount,
        -- amounts of findings open at the start and still there whose amount changed (e.g. a cost corrected)
        coalesce(sum(end_amount - start_amount) filter (where was_open and is_present), 0) as remeasured_amount,
        count(*) filter (where is_open) as open_at_end,
        coalesce(sum(end_amount) filter (where is_open), 0) as open_at_end_amount

    from states
    group by currency_code

),

final as (

    select
        params.period,
        movements.currency_code,
        movements.open_at_start,
        movements.open_at_start_amount,
        movements.new,
        movements.new_amount,
        movements.cleared,
        movements.cleared_amount,
        movements.written_off,
        movements.written_off_amount,
        movements.remeasured_amount,
        movements.open_at_end,
        movements.open_at_end_amount,
        movements.open_at_start + movements.new - movements.cleared - movements.written_off - movements.open_at_end as
            check_count,
        movements.open_at_start_amount + movements.new_amount - movements.cleared_amount - movements.written_off_amount
            + movements.remeasured_amount - movements.open_at_end_amount as check_amount,
        (select max(built_at) from previous) as previous_built_at,
        params.built_at,
        params.run_id

    from movements
    cross join params

)

select * from final
