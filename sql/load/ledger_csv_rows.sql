-- The accepted lines of ledger_csv_lines.sql as staged ledger rows (the columns and types of the streaming
-- reader's staged rows, see pipelines/ledger/import.ts): the typed values and text columns checked and kept there
-- (a reference as written, codes in upper case, an empty country as NULL).
-- <first_line>: the line number of the first data line (rowid 0).
SELECT partner_reference, product_id, paid_local, NULL::TIMESTAMPTZ AS paid_instant, paid_at_raw, sales_price,
       expected_cost, currency_code, country_code, order_status, rowid + {{first_line}} AS source_line
FROM temp.ledger_csv_lines
WHERE accepted
