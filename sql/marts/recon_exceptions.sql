-- One row per finding of the period (finding type + reference [+ sale]), with its effect on the cost bridge
-- and the time it was first detected, which survives rebuilds.
with

params as (

    select * from cfg_params

),

findings as (

    select * from int_recon_findings_detected

),

bridge_items as (

    select * from int_recon_bridge_items_attributed

),

previous as (

    select * from prev_recon_exceptions

),

differences as (

    -- every field in which a matched pair's sides differ, on each of its findings (issue 29)
    select * from int_recon_match_differences

),

finding_types as (

    select * from cfg_exception_types

),

decisions as (

    -- the current decision of each finding (recon_decisions, superseded_at null): it stays while the finding does
    select * from cur_recon_decisions

),

bridge_amounts as (

    select
        exception_type,
        group_key,
        transaction_id,
        currency_code,
        sum(amount) as amount

    from bridge_items
    where exception_type is not null
    group by all

),

final as (

    select
        params.period,
        findings.finding_id,
        findings.exception_type,
        findings.family,
        findings.partner_reference,
        findings.transaction_id,
        findings.product_id,
        findings.ledger_value,
        findings.provider_value,
        findings.difference,
        -- the two sides' values when they are text, not money: reference_mismatch's references (issue 29)
        findings.ledger_value_text,
        findings.provider_value_text,
        findings.currency_code,
        findings.details,
        differences.differences,
        coalesce(previous.first_detected_at, params.built_at) as first_detected_at,
        findings.ledger_source,
        findings.status,
        findings.status_class,
        findings.order_status,
        findings.transaction_at,
        findings.paid_at,
        findings.key_last4,
        findings.age_days,
        findings.aging_bucket,
        -- missing_at_provider only (windows | lookup | unproven); NULL for the other types
        findings.proof,
        coalesce(bridge_amounts.amount, 0) as amount,
        -- issue 30: the cost at stake of a type whose registry row says so, apart from its bridge effect
        case when finding_types.exposure_from = 'provider_value' then coalesce(findings.provider_value, 0) end
            as exposure,
        params.as_of,
        params.built_at,
        params.run_id,
        decisions.decision,
        decisions.note as decision_note,
        decisions.owner,
        decisions.expected_clear_by,
        decisions.decided_by,
        decisions.decided_at,
        decisions.row_sha256 as decision_sha256

    from findings
    cross join params
    left join bridge_amounts
        on bridge_amounts.exception_type = findings.exception_type
        and bridge_amounts.group_key = findings.group_key
        and bridge_amounts.transaction_id is not distinct from findings.transaction_id
        and bridge_amounts.currency_code is not distinct from findings.currency_code
    left join previous
        on previous.finding_id = findings.finding_id
    left join decisions
        on decisions.finding_id = findings.finding_id
    left join finding_types
        on finding_types.exception_type = findings.exception_type
    left join differences
        on differences.transaction_id = findings.transaction_id
        and differences.partner_reference = findings.group_key

)

select * from final
