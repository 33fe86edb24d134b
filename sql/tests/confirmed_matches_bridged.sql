-- A confirmed suggested match is one pair of the cost bridge (issue 29): its sale's item is in the ledger order's
-- group and is not counted missing, and the order's item is not counted missing either. With bridge_adds_up, the
-- bridge still adds up with confirmed pairs. Returns the items that break it.
with

confirmed as (

    select * from int_recon_match_decided
    where is_matched

),

items as (

    select * from int_recon_bridge_items_attributed

),

final as (

    select confirmed.suggestion_id, items.side, items.group_key, items.match_class, items.exception_type
    from confirmed
    inner join items
        on items.side = 'provider'
        and items.row_id = confirmed.transaction_id
    where items.group_key <> confirmed.ledger_reference
        or items.match_class <> 'matched'

    union all

    select confirmed.suggestion_id, items.side, items.group_key, items.match_class, items.exception_type
    from confirmed
    inner join items
        on items.side = 'ledger'
        and items.group_key = confirmed.ledger_reference
    -- the sale is built (in the period's scope): the order must have met it
    where items.match_class <> 'matched'
        and exists (
            select 1 from int_provider__sales_classified as sales
            where sales.transaction_id = confirmed.transaction_id
        )

)

select * from final
