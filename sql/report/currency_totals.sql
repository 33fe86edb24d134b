-- One row per currency of the period: both sides' counts and totals (recon_summary). Parameters: $period.
SELECT currency_code, ledger_orders, ledger_active_orders, ledger_sales_total, ledger_cost_total, provider_sales,
       provider_billable_sales, provider_sales_total, provider_cost_total, provider_margin, matched, exceptions
FROM recon_summary
WHERE period = $period
ORDER BY currency_code NULLS LAST
