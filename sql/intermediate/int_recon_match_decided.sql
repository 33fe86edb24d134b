-- One row per suggested match someone decided (issue 29), of any period: the pair recon_match_pairs names and its
-- current decision in recon_decisions (finding_id = suggestion_id): confirmed (match_confirmed) or rejected
-- (match_rejected). Its status comes from the decision rows, never from a rebuilt mart, so it survives re-runs.
-- A confirmed pair is matched by every model (int_provider__sales_classified gives its sale the ledger's reference)
-- while it is needed: once the ledger carries the provider's reference itself (the reference corrected, as the
-- reference_mismatch finding asks), the two meet by it and the confirmation no longer applies (is_matched false).
with

pairs as (

    select * from recon_match_pairs

),

decisions as (

    select finding_id, decision, note, decided_by, decided_at
    from recon_decisions
    where superseded_at is null
        and decision in ('match_confirmed', 'match_rejected')

),

corrected as (

    -- the confirmed sales whose own reference a ledger line now carries
    select distinct ledger.partner_reference
    from stg_ledger__orders as ledger
    where ledger.partner_reference in (select provider_reference from pairs)

),

final as (

    select
        pairs.suggestion_id,
        pairs.period,
        pairs.ledger_reference,
        pairs.transaction_id,
        pairs.provider_reference,
        pairs.score,
        pairs.reasons,
        case decisions.decision when 'match_confirmed' then 'confirmed' else 'rejected' end as status,
        decisions.decided_by,
        decisions.decided_at,
        decisions.note,
        decisions.decision = 'match_confirmed' and corrected.partner_reference is null as is_matched

    from pairs
    inner join decisions
        on decisions.finding_id = pairs.suggestion_id
    left join corrected
        on corrected.partner_reference = pairs.provider_reference

)

select * from final
