-- The roll-forward of each currency adds up to zero, and its open_at_end is the findings actually open now
-- (not decided write_off), counted and summed here from the findings themselves, so a finding lost or
-- counted twice by the roll-forward shows.
with

open_now as (

    select
        recon_exceptions.currency_code,
        count(*) as findings,
        coalesce(sum(recon_exceptions.amount), 0) as amount

    from recon_exceptions
    left join cur_recon_decisions
        on cur_recon_decisions.finding_id = recon_exceptions.finding_id
    where coalesce(cur_recon_decisions.decision, '') <> 'write_off'
    group by recon_exceptions.currency_code

),

final as (

    select
        coalesce(recon_roll_forward.currency_code, open_now.currency_code) as currency_code,
        recon_roll_forward.check_count,
        recon_roll_forward.check_amount,
        recon_roll_forward.open_at_end,
        coalesce(open_now.findings, 0) as open_findings,
        recon_roll_forward.open_at_end_amount,
        coalesce(open_now.amount, 0) as open_amount

    from recon_roll_forward
    full outer join open_now
        on open_now.currency_code is not distinct from recon_roll_forward.currency_code
    where recon_roll_forward.period is null
        or coalesce(recon_roll_forward.check_count, 0) <> 0
        or coalesce(recon_roll_forward.check_amount, 0) <> 0
        or coalesce(recon_roll_forward.open_at_end, 0) <> coalesce(open_now.findings, 0)
        or coalesce(recon_roll_forward.open_at_end_amount, 0) <> coalesce(open_now.amount, 0)

)

select * from final
