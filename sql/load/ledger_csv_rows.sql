-- The accepted lines of ledger_csv_lines.sql as staged ledger rows (the columns and types of the streaming
-- reader's staged rows, see pipelines/ledger/import.ts): the typed values checked there, and the text columns
-- as the line holds them (a reference as written, codes in upper case, an empty country as NULL).
-- <first_line>: the line number of the first data line (rowid 0); <split>: the line's fields, as there;
-- <reference>, <paid_at_raw>, <currency>, <country>: those columns' fields of `f`, the split line (NULL for
-- an absent optional column).
SELECT {{reference}} AS partner_reference, product_id, paid_local, NULL::TIMESTAMPTZ AS paid_instant,
       {{paid_at_raw}} AS paid_at_raw, sales_price, expected_cost, upper({{currency}}) AS currency_code,
       upper(nullif({{country}}, '')) AS country_code, order_status,
       rowid + {{first_line}} AS source_line
FROM (SELECT rowid, *, {{split}} AS f FROM temp.ledger_csv_lines WHERE accepted)
