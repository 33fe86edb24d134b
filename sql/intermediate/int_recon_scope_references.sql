-- The trimmed references the period's reconciliation looks at: those of a ledger line paid, or a provider sale
-- dated, within a day of the period. A row of any period with such a reference is built by the classified
-- models (its group may belong to the period); every other row is out_of_period without being built, so the
-- work follows the month, not the years of history in the database. The day on each side makes this a superset
-- whatever the zone's offsets (int_recon_rows_classified still decides each group's period exactly). Both references
-- of every confirmed suggested match are in it too: its sale, dated in another period, meets its order (issue 29).
with

params as (

    select * from cfg_params

),

ledger_references as (

    select ledger.partner_reference
    from stg_ledger__orders as ledger
    cross join params
    where ledger.paid_at >= params.scope_starts_at
        and ledger.paid_at < params.scope_ends_at
        and ledger.partner_reference is not null

),

provider_references as (

    select sales.partner_reference
    from stg_provider__sales as sales
    cross join params
    where sales.transaction_at >= params.scope_starts_at
        and sales.transaction_at < params.scope_ends_at
        and sales.partner_reference is not null

),

confirmed_references as (

    select confirmed.ledger_reference as partner_reference
    from int_recon_match_decided as confirmed
    where confirmed.is_matched
    union all
    select confirmed.provider_reference
    from int_recon_match_decided as confirmed
    where confirmed.is_matched

),

final as (

    select partner_reference from ledger_references
    union
    select partner_reference from provider_references
    union
    select partner_reference from confirmed_references

)

select * from final
