-- Every classified row has one of the known match classes and a known side.
with

final as (

    select side, row_id, match_class from int_recon_rows_classified
    where match_class not in ('matched', 'duplicate', 'ledger_only', 'provider_only', 'out_of_period')
        or side not in ('ledger', 'provider')

)

select * from final
