-- One row per finding that differs between the period's active sign-off and this reconciliation: `new` (not
-- among the signed findings), `cleared` (signed, no longer found) or `changed` (its amounts, currency or
-- statuses or its decision differ from the signed row). Empty when the period has no active sign-off.
-- Columns: period, signoff_id, finding_id, change, exception_type, partner_reference, transaction_id,
-- currency_code, signed_amount, current_amount, amount_delta (current - signed, a missing side counting 0),
-- signed_details, current_details, signed_decision, current_decision, as_of, built_at, run_id.
with

params as (

    select * from cfg_params

),

signed as (

    select * from signed_recon_exceptions

),

found as (

    select * from recon_exceptions

),

compared as (

    select
        coalesce(found.finding_id, signed.finding_id) as finding_id,
        case
            when signed.finding_id is null then 'new'
            when found.finding_id is null then 'cleared'
            else 'changed'
        end as change,
        coalesce(found.exception_type, signed.exception_type) as exception_type,
        coalesce(found.partner_reference, signed.partner_reference) as partner_reference,
        coalesce(found.transaction_id, signed.transaction_id) as transaction_id,
        coalesce(found.currency_code, signed.currency_code) as currency_code,
        signed.amount as signed_amount,
        found.amount as current_amount,
        cast(coalesce(found.amount, 0) - coalesce(signed.amount, 0) as decimal(18, 4)) as amount_delta,
        signed.details as signed_details,
        found.details as current_details,
        signed.decision as signed_decision,
        found.decision as current_decision

    from found
    full outer join signed
        on signed.finding_id = found.finding_id
    where signed.finding_id is null
        or found.finding_id is null
        or found.amount is distinct from signed.amount
        or found.ledger_value is distinct from signed.ledger_value
        or found.provider_value is distinct from signed.provider_value
        or found.difference is distinct from signed.difference
        or found.currency_code is distinct from signed.currency_code
        or found.status_class is distinct from signed.status_class
        or found.order_status is distinct from signed.order_status
        -- a decision taken after the sign-off (the period reopened) is a change like any other
        or found.decision is distinct from signed.decision
        or found.decision_note is distinct from signed.decision_note
        or found.owner is distinct from signed.owner
        or found.expected_clear_by is distinct from signed.expected_clear_by

),

final as (

    select
        params.period,
        params.signoff_id,
        compared.*,
        params.as_of,
        params.built_at,
        params.run_id

    from compared
    cross join params
    where params.signoff_id is not null

)

select * from final
