-- The data lines of a CSV ledger, each checked by the ledger's rules written in SQL. Materialized as the
-- temporary table ledger_csv_lines by sources/ledger/csv-bulk.ts, which first checks that DuckDB will read
-- the file's physical lines as they are (no lone CR, no NUL or \x01 byte, no line over 1 MiB), and afterwards
-- that the number of rows is the file's and that sampled rows hold the file's lines. One row per physical line
-- after the header, in file order (line number = rowid + 1 + the lines skipped; no window function numbers
-- them, as that would read the file on one thread). No `new_line`: unset, CRLF and LF both end a line; set to
-- CRLF, DuckDB 1.5 refused an LF file with a line break at one of its 8,000,000-byte thread boundaries, and the
-- whole file went to the streaming reader (the 10M bench's ledger: 123 s instead of a few):
-- - `line`: the line's decoded text without its line break (NULL for an empty line);
-- - `accepted`: the line is certainly an accepted ledger row, as sources/ledger/validate.ts would make it; its
--   typed values are here (product_id, paid_local, sales_price, expected_cost, order_status) and so are its text
--   columns as the row keeps them (partner_reference, paid_at_raw, currency_code, country_code), taken from the
--   split made here: ledger_csv_rows.sql only selects them (splitting each line again cost ~0.25 s a million
--   lines). These rules only recognize the common, unambiguous
--   spellings: every other line (bad ones included) is read again by the streaming reader's own code, which
--   gives each reject its reason. SQL never rejects. test/pipelines/ledger/import-bulk.test.ts imports the
--   same files with both readers and compares.
--
-- What csv-bulk-sql.ts fills in (each <name> below stands for the placeholder of that name):
-- <file>: the ledger (or its UTF-8 copy) as a string literal; <skip>: the lines up to and including the
-- header; <encoding>: 'utf-8' or 'latin-1'; <line_delimiter>: the \x01 character (each line is one value);
-- <split>: the line's fields as the streaming reader splits them, or NULL for a line whose quotes it leaves
-- to the streaming reader (a doubled quote, a quote inside an unquoted field, text after a closing quote);
-- <field_count>: the header's fields; <cells>: each canonical column as its field, `f[i] AS column` (NULL
-- for an absent optional column);
-- <space>: the body of a regular-expression class of JavaScript's white space (what String.trim removes);
-- <date_pattern>: ledger.dateFormat compiled by dates.ts, <date_groups>: its groups' names, <year> ...
-- <fraction>: each date field from its groups (NULL when absent);
-- <money_pattern>: a number with the configured decimal separator and its thousands separator, at most 4
-- decimals that are not trailing zeros, without sign other than "-", space, currency or parentheses;
-- <ambiguous_number>: one thousands group and no decimals ("1.234"), which numbers.ts refuses to guess;
-- <price_digits>, <cost_digits>: the amount with the separators DuckDB's cast reads; <decimal_type>: the
-- DECIMAL of numbers.ts's limits (its cast refuses more integer digits, as numbers.ts does);
-- <status_cases>: the status synonyms as WHEN/THEN pairs.
WITH numbered AS (
  SELECT line
  FROM read_csv({{file}}, columns = {'line': 'VARCHAR'}, header = false, skip = {{skip}}, auto_detect = false,
                delim = {{line_delimiter}}, quote = '', escape = '', strict_mode = false, encoding = {{encoding}})
), cells AS (
  SELECT line, coalesce(len(f) = {{field_count}}, false) AS split_whole,
         {{cells}}
  FROM (SELECT line, {{split}} AS f FROM numbered)
), parts AS (
  SELECT *, regexp_extract(paid_at, {{date_pattern}}, {{date_groups}}) AS d
  FROM cells
), fields AS (
  SELECT *,
         {{year}} AS d_year, {{month}} AS d_month, {{day}} AS d_day,
         coalesce({{hour}}, 0) AS d_hour, coalesce({{minute}}, 0) AS d_minute, coalesce({{second}}, 0) AS d_second,
         -- Microseconds: the fraction's first 6 digits, as dates.ts keeps them.
         CAST(rpad(left(coalesce({{fraction}}, ''), 6), 6, '0') AS INTEGER) AS d_micros
  FROM parts
), typed AS (
  SELECT line, split_whole, partner_reference, paid_at, currency_code, country_code,
         CASE WHEN regexp_full_match(product_id, '\d{1,18}') AND NOT regexp_full_match(product_id, '0+')
              THEN TRY_CAST(product_id AS BIGINT) END AS product_id,
         -- A calendar date and time, year 1900-2999, as the format reads it (no surrounding white space).
         CASE WHEN NOT regexp_matches(paid_at, '^[{{space}}]|[{{space}}]$')
                   AND d_year BETWEEN 1900 AND 2999 AND d_month BETWEEN 1 AND 12 AND d_day >= 1
                   AND d_hour <= 23 AND d_minute <= 59 AND d_second <= 59
              THEN try(make_timestamp(d_year, d_month, d_day, d_hour, d_minute, d_second)) + to_microseconds(d_micros)
         END AS paid_local,
         CASE WHEN regexp_full_match(sales_price, {{money_pattern}})
                   AND NOT regexp_full_match(sales_price, {{ambiguous_number}})
              THEN TRY_CAST({{price_digits}} AS {{decimal_type}}) END AS sales_price,
         CASE WHEN regexp_full_match(expected_cost, {{money_pattern}})
                   AND NOT regexp_full_match(expected_cost, {{ambiguous_number}})
              THEN TRY_CAST({{cost_digits}} AS {{decimal_type}}) END AS expected_cost,
         CASE WHEN regexp_full_match(order_status, '[A-Za-z]+')
              THEN CASE lower(order_status) {{status_cases}} END END AS order_status
  FROM fields
), checked AS (
  SELECT *,
         coalesce(split_whole
                  AND NOT contains(line, chr(65533))
                  AND regexp_matches(partner_reference, '[^{{space}}]')
                  -- A NUL or a byte order mark in a reference is refused by validate.ts, with its reason.
                  AND NOT contains(partner_reference, chr(0)) AND NOT contains(partner_reference, chr(65279))
                  -- Nor an invisible or direction-changing character (issue 34): <invisible>, core/text-safety.ts.
                  AND NOT regexp_matches(partner_reference, {{invisible}})
                  AND product_id IS NOT NULL AND paid_local IS NOT NULL
                  AND sales_price IS NOT NULL AND expected_cost IS NOT NULL
                  AND regexp_full_match(currency_code, '[A-Za-z]{3}')
                  AND (country_code IS NULL OR country_code = '' OR regexp_full_match(country_code, '[A-Za-z]{2,3}'))
                  AND order_status IS NOT NULL, false) AS accepted
  FROM typed
)
SELECT line, accepted,
       CASE WHEN accepted THEN product_id END AS product_id,
       CASE WHEN accepted THEN paid_local END AS paid_local,
       CASE WHEN accepted THEN sales_price END AS sales_price,
       CASE WHEN accepted THEN expected_cost END AS expected_cost,
       CASE WHEN accepted THEN order_status END AS order_status,
       CASE WHEN accepted THEN partner_reference END AS partner_reference,
       CASE WHEN accepted THEN paid_at END AS paid_at_raw,
       CASE WHEN accepted THEN upper(currency_code) END AS currency_code,
       CASE WHEN accepted THEN upper(nullif(country_code, '')) END AS country_code
FROM checked
