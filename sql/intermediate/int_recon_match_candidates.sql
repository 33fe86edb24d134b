-- One row per suggested match of the period (issue 29): a paid ledger order of the period with no provider sale and a
-- provider sale (not canceled) with no ledger order, whose references are equal after normalising (case, spaces and
-- separators, leading zeros of a number) or within Damerau-Levenshtein distance 2, scored 0-100 (the README's
-- table), ranked per ledger order. The sale may be dated up to maxDays outside the period (an order of the 31st and
-- a sale of the 2nd) on a day the ledger reaches. Blocked, never a cross join: the two sides meet on currency, local
-- date (each order's maxDays either side) and product, or on currency, date and cost. Pairs below minScore, and pairs
-- someone decided (int_recon_match_decided), are left out. suggestion_id = md5(period|ledger reference|transaction id).
with

params as (

    select * from cfg_params

),

suggest as (

    select * from cfg_suggest

),

-- the open rows of both sides with a reference in the period's scope
classified as (

    select rows_classified.*
    from int_recon_rows_classified as rows_classified
    cross join suggest
    where suggest.enabled
        and rows_classified.match_class in ('ledger_only', 'provider_only')
        and rows_classified.partner_reference is not null

),

decided as (

    select * from int_recon_match_decided

),

open_ledger as (

    select
        ledger.ledger_line_id,
        ledger.partner_reference,
        ledger.product_id,
        ledger.expected_cost,
        ledger.sales_price,
        ledger.currency_code,
        ledger.paid_at,
        ledger.paid_local_date,
        -- leading zeros of each number first, then case, spaces and separators: 'po-2026 009401' = 'PO20269401'
        regexp_replace(
            upper(regexp_replace(ledger.partner_reference, '(^|[^0-9])0+([0-9])', '\1\2', 'g')),
            '[^A-Z0-9]',
            '',
            'g'
        ) as normalized_reference

    -- a semi join, not an inner one: on the id, DuckDB built a perfect hash table of one slot per id in the range
    -- for these few lines, outside its memory limit (int_recon_pairs_flagged)
    from int_ledger__orders_classified as ledger
    where ledger.ledger_line_id in (
            select ledger_line_id from classified where side = 'ledger' and match_class = 'ledger_only'
        )
        and ledger.is_active
        and ledger.is_in_period

),

period_sales as (

    select
        sales.transaction_id,
        sales.partner_reference,
        sales.product_id,
        sales.partner_cost_price,
        sales.sales_price,
        sales.currency_code,
        sales.transaction_at,
        sales.transaction_local_date

    -- a semi join, for the same reason as open_ledger's
    from int_provider__sales_classified as sales
    where sales.transaction_id in (
            select transaction_id from classified where side = 'provider' and match_class = 'provider_only'
        )
        and sales.status_class <> 'canceled'

),

-- how far the ledger reaches: a sale outside the period has "no ledger order" only on a day the ledger covers. Before
-- the next month's ledger is imported every sale of its first days lacks one, which says nothing: a bench-like 1M
-- month blocked 4M such pairs (16 s on a loaded machine) and proposed ~12 neighbouring references per late order
ledger_reach as (

    select min(paid_at) as first_paid_at, max(paid_at) as last_paid_at
    from stg_ledger__orders

),

-- the days a sale outside the period may be dated on and still meet an order of it: maxDays before its first day
-- and after its last, within the ledger's reach (the scope's timestamps widened, then the local date decides)
edge as (

    select
        params.period_start,
        params.period_end,
        params.timezone,
        greatest(
            cast(params.period_start - suggest.max_days as date),
            cast(timezone(params.timezone, ledger_reach.first_paid_at) as date)
        ) as first_date,
        least(
            cast(params.period_end + suggest.max_days as date),
            cast(timezone(params.timezone, ledger_reach.last_paid_at) as date)
        ) as last_date,
        params.scope_starts_at - to_days(suggest.max_days) as starts_at,
        params.scope_ends_at + to_days(suggest.max_days) as ends_at

    from params
    cross join suggest
    cross join ledger_reach
    where suggest.enabled

),

-- those days as instants (local midnights), so a sale is kept by comparing its timestamp: converting each of the
-- scope's sales to a local date with a zone from a column cost 6.8 CPU-s at 1M (issue 33)
edge_instants as (

    select
        edge.*,
        timezone(edge.timezone, cast(edge.first_date as timestamp)) as before_from,
        timezone(edge.timezone, cast(edge.period_start as timestamp)) as before_until,
        timezone(edge.timezone, cast(edge.period_end + 1 as timestamp)) as after_from,
        timezone(edge.timezone, cast(edge.last_date + 1 as timestamp)) as after_until

    from edge

),

-- the referenced sales within the widened scope, read once per edge below (not materialized: each read keeps only
-- its own days)
edge_scope_sales as not materialized (

    select
        staged.transaction_id,
        staged.partner_reference,
        staged.product_id,
        staged.partner_cost_price,
        staged.sales_price,
        staged.currency_code,
        staged.transaction_at,
        staged.status

    from stg_provider__sales as staged
    cross join edge_instants as edge
    where staged.transaction_at >= edge.starts_at
        and staged.transaction_at < edge.ends_at
        and staged.partner_reference is not null

),

-- the days before the period, then those after it: each range its own read, which DuckDB narrows to the few row
-- groups holding it; with the two ranges OR-ed, every sale was read (this model 0.44 -> 0.26 s at 1M)
edge_dated as (

    select sales.*, cast(timezone(edge.timezone, sales.transaction_at) as date) as transaction_local_date
    from edge_scope_sales as sales
    cross join edge_instants as edge
    where sales.transaction_at >= edge.before_from and sales.transaction_at < edge.before_until

    union all

    select sales.*, cast(timezone(edge.timezone, sales.transaction_at) as date) as transaction_local_date
    from edge_scope_sales as sales
    cross join edge_instants as edge
    where sales.transaction_at >= edge.after_from and sales.transaction_at < edge.after_until

),

-- how often each of those references is on a sale and on a ledger line, of any date: counted for their references
-- only (a semi join probes the history with them, as the classified models do), never a hash of all the history
edge_sale_counts as (

    select staged.partner_reference, count(*) as sales
    from stg_provider__sales as staged
    where staged.partner_reference in (select partner_reference from edge_dated)
    group by staged.partner_reference

),

edge_ledger_references as (

    select distinct ledger.partner_reference
    from stg_ledger__orders as ledger
    where ledger.partner_reference in (select partner_reference from edge_dated)

),

-- a sale of the days around the period (the period's own are classified above): not canceled, the only sale of its
-- reference, no ledger line of any date carries that reference, and not the sale of a confirmed match (issue 29)
edge_sales as (

    select edge_dated.* exclude (status)
    from edge_dated
    inner join edge_sale_counts
        on edge_sale_counts.partner_reference = edge_dated.partner_reference
    left join edge_ledger_references
        on edge_ledger_references.partner_reference = edge_dated.partner_reference
    left join cfg_status_map as status_map
        on trim(edge_dated.status) = status_map.status
    left join decided
        on decided.transaction_id = edge_dated.transaction_id
        and decided.is_matched
    where edge_sale_counts.sales = 1
        and edge_ledger_references.partner_reference is null
        and coalesce(status_map.status_class, 'unknown') <> 'canceled'
        and decided.transaction_id is null

),

open_sales as (

    select
        unioned.*,
        -- leading zeros of each number first, then case, spaces and separators: 'po-2026 009401' = 'PO20269401'
        regexp_replace(
            upper(regexp_replace(unioned.partner_reference, '(^|[^0-9])0+([0-9])', '\1\2', 'g')),
            '[^A-Z0-9]',
            '',
            'g'
        ) as normalized_reference

    from (
        select * from period_sales
        union all by name
        select * from edge_sales
    ) as unioned

),

-- each open order once per day it may meet a sale on (maxDays either side): the date becomes a join key
ledger_days as (

    select
        open_ledger.ledger_line_id,
        open_ledger.product_id,
        open_ledger.expected_cost,
        open_ledger.currency_code,
        open_ledger.normalized_reference,
        cast(open_ledger.paid_local_date + day_offset.days as date) as block_date

    from open_ledger
    cross join suggest
    cross join lateral (
        select cast(unnest(generate_series(-suggest.max_days, suggest.max_days)) as integer) as days
    ) as day_offset

),

-- the references are compared inside each blocked join, so only the near pairs leave it: what the union and the
-- joins back hold is the candidates, not every pair of a block (a month of 10M sales blocks millions of pairs).
-- Damerau-Levenshtein costs ~5x a Levenshtein distance (measured: 6M pairs of bench-like references, 13-20 s
-- against 3 s): a transposition is two Levenshtein edits, so distance <= 2 needs Levenshtein <= 4, checked first.
-- The cost block takes only pairs of two products, so no pair is compared twice (UNION ALL, no de-duplication).
blocked as (

    select ledger_days.ledger_line_id, open_sales.transaction_id
    from ledger_days
    inner join open_sales
        on open_sales.currency_code = ledger_days.currency_code
        and open_sales.transaction_local_date = ledger_days.block_date
        and open_sales.product_id = ledger_days.product_id
    where open_sales.normalized_reference = ledger_days.normalized_reference
        or abs(length(open_sales.normalized_reference) - length(ledger_days.normalized_reference)) <= 2
            and levenshtein(open_sales.normalized_reference, ledger_days.normalized_reference) <= 4
            and damerau_levenshtein(open_sales.normalized_reference, ledger_days.normalized_reference) <= 2

    union all

    select ledger_days.ledger_line_id, open_sales.transaction_id
    from ledger_days
    inner join open_sales
        on open_sales.currency_code = ledger_days.currency_code
        and open_sales.transaction_local_date = ledger_days.block_date
        and open_sales.partner_cost_price = ledger_days.expected_cost
    where open_sales.product_id is distinct from ledger_days.product_id
        and (
            open_sales.normalized_reference = ledger_days.normalized_reference
            or abs(length(open_sales.normalized_reference) - length(ledger_days.normalized_reference)) <= 2
                and levenshtein(open_sales.normalized_reference, ledger_days.normalized_reference) <= 4
                and damerau_levenshtein(open_sales.normalized_reference, ledger_days.normalized_reference) <= 2
        )

),

compared as (

    select
        md5(params.period || '|' || ledger.partner_reference || '|' || sales.transaction_id) as suggestion_id,
        params.period,
        ledger.ledger_line_id,
        ledger.partner_reference as ledger_reference,
        sales.transaction_id,
        sales.partner_reference as provider_reference,
        ledger.product_id as ledger_product_id,
        sales.product_id as provider_product_id,
        ledger.expected_cost as ledger_cost,
        sales.partner_cost_price as provider_cost,
        ledger.sales_price as ledger_price,
        sales.sales_price as provider_price,
        ledger.currency_code,
        ledger.paid_at,
        sales.transaction_at,
        abs(date_diff('day', ledger.paid_local_date, sales.transaction_local_date)) as days_apart,
        ledger.normalized_reference = sales.normalized_reference as is_normalized_equal,
        damerau_levenshtein(ledger.normalized_reference, sales.normalized_reference) as reference_distance,
        ledger.product_id is not distinct from sales.product_id as is_same_product,
        abs(sales.partner_cost_price - ledger.expected_cost) <= params.cost_tolerance as is_same_cost,
        abs(sales.sales_price - ledger.sales_price) <= params.price_tolerance as is_same_price,
        -- money as written, to two decimals at least: 10.0000 -> 10.00, 10.1250 -> 10.125
        regexp_replace(cast(ledger.expected_cost as varchar), '(\.\d\d\d*?)0+$', '\1') as ledger_cost_text,
        regexp_replace(cast(sales.partner_cost_price as varchar), '(\.\d\d\d*?)0+$', '\1') as provider_cost_text,
        regexp_replace(cast(ledger.sales_price as varchar), '(\.\d\d\d*?)0+$', '\1') as ledger_price_text,
        regexp_replace(cast(sales.sales_price as varchar), '(\.\d\d\d*?)0+$', '\1') as provider_price_text,
        suggest.max_days,
        suggest.min_score

    -- left joins: every candidate has its line and its sale (blocked was made of them); inner, they built perfect hash
    -- tables (int_recon_pairs_flagged)
    from blocked
    left join open_ledger as ledger
        on ledger.ledger_line_id = blocked.ledger_line_id
    left join open_sales as sales
        on sales.transaction_id = blocked.transaction_id
    cross join params
    cross join suggest

),

scored as (

    select
        compared.*,
        -- the weights: README "Suggested matches"
        case
            when is_normalized_equal then 50
            when reference_distance = 1 then 35
            -- two typos in one reference are rare, two neighbouring order numbers common: at 1M the bench month's 47
            -- two-edit pairs that agreed in everything else were all two orders, so a two-edit pair alone stays under
            -- the default minScore (issue 29: no false proposal)
            else 5
        end
        + case when is_same_product then 15 else 0 end
        + case when coalesce(is_same_cost, false) then 15 else 0 end
        + case when coalesce(is_same_price, false) then 10 else 0 end
        + cast(round(10.0 * (max_days + 1 - days_apart) / (max_days + 1)) as integer) as score

    from compared
    where is_normalized_equal or reference_distance <= 2

),

described as (

    select
        scored.*,
        concat_ws('; ',
            'reference ' || ledger_reference || ' ≈ ' || provider_reference || ': '
                || case
                    when is_normalized_equal then 'equal after normalising case, separators and leading zeros'
                    when reference_distance = 1 then '1 edit apart'
                    else reference_distance || ' edits apart'
                end,
            case
                when is_same_product then 'product ' || ledger_product_id || ' on both'
                else 'product ' || ledger_product_id || ' → ' || coalesce(cast(provider_product_id as varchar), '?')
            end,
            case
                when coalesce(is_same_cost, false) then 'cost ' || ledger_cost_text || ' on both'
                else 'cost ' || ledger_cost_text || ' → ' || provider_cost_text
            end,
            case
                when coalesce(is_same_price, false) then 'price ' || ledger_price_text || ' on both'
                else 'price ' || ledger_price_text || ' → ' || provider_price_text
            end,
            'currency ' || currency_code || ' on both',
            case
                when days_apart = 0 then 'same day'
                when days_apart = 1 then '1 day apart'
                else days_apart || ' days apart'
            end
        ) as reasons

    from scored
    where score >= min_score

),

final as (

    select
        described.* exclude (
            max_days, min_score, ledger_cost_text, provider_cost_text, ledger_price_text, provider_price_text
        ),
        row_number() over (
            partition by described.ledger_line_id
            order by described.score desc, described.days_apart, described.transaction_id
        ) as rank

    from described
    left join decided
        on decided.suggestion_id = described.suggestion_id
    -- a pair someone decided is not proposed again: rejected stays rejected, confirmed is matched
    where decided.suggestion_id is null

)

select * from final
