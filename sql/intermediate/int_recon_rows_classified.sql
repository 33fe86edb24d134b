-- One row per ledger line and per provider sale (all of them, every period), each in exactly one match class:
-- matched | duplicate | ledger_only | provider_only | out_of_period. Rows meet by trimmed partner reference.
with

ledger as (

    select * from stg_ledger__orders

),

sales as (

    select * from stg_provider__sales

),

rows_unioned as (

    select
        'ledger' as side,
        ledger_line_id as row_id,
        ledger_line_id,
        cast(null as bigint) as transaction_id,
        partner_reference,
        -- a line without a reference can match nothing: it is a group of its own
        coalesce(partner_reference, '#ledger:' || ledger_line_id) as group_key,
        is_in_period

    from ledger

    union all

    select
        'provider' as side,
        cast(transaction_id as varchar) as row_id,
        cast(null as varchar) as ledger_line_id,
        transaction_id,
        partner_reference,
        coalesce(partner_reference, '#sale:' || transaction_id) as group_key,
        is_in_period

    from sales

),

reference_groups as (

    select
        group_key,
        count(*) filter (where side = 'ledger') as ledger_lines,
        count(*) filter (where side = 'provider') as provider_sales,
        -- the period rule: a group belongs to the period when one of its rows does
        bool_or(is_in_period) as group_in_period

    from rows_unioned
    group by group_key

),

final as (

    select
        rows_unioned.*,
        reference_groups.ledger_lines,
        reference_groups.provider_sales,
        case
            when not reference_groups.group_in_period then 'out_of_period'
            when reference_groups.ledger_lines > 1 or reference_groups.provider_sales > 1 then 'duplicate'
            when reference_groups.ledger_lines = 1 and reference_groups.provider_sales = 1 then 'matched'
            when reference_groups.ledger_lines = 1 then 'ledger_only'
            else 'provider_only'
        end as match_class

    from rows_unioned
    inner join reference_groups
        on rows_unioned.group_key = reference_groups.group_key

)

select * from final
