-- One row per record of a landed sales response (a gzip JSON array) not stored unchanged already: its 0-based
-- index, its raw JSON, its hash, each field
-- of the Sales record typed (NULL when absent or unusable), `problem` (why it cannot be loaded, or NULL) and
-- `date_problem` (why transaction_at is NULL). Materialized as the temporary table landed_sales by
-- pipelines/extract/load.ts, which then quarantines, de-duplicates and upserts from it.
--
-- The per-field parts are written out by pipelines/extract/landed-staging.ts from its table of the record's fields
-- (JSON name, column, kind, required), the one list the upsert also uses: each {{ name }} in the query is filled
-- with the part the comment above it describes as <name>.
WITH fresh AS (
  -- <fresh_records>: the records to type, each with its 0-based index, raw JSON and record hash (the md5 of
  -- landed-staging.ts's recordHashSql) — every record of the file (read_json_objects), or, after the hashing pass
  -- of load.ts, the ones it did not find stored unchanged (landed_hashes keeps their raw JSON from that one read;
  -- load.ts adds the unchanged ones' rows, is_unchanged)
  {{fresh_records}}
), fields AS (
  -- types[i] and texts[i]: json_type and text of field i (<field_paths>: the fields' JSON paths, in order);
  -- <money_digits>: for each money field, the number's own characters as found in the raw text (digits_<name>),
  -- checked against the parsed value in the problems
  SELECT record_index, raw, record_hash, json_type(raw, {{field_paths}}) AS types,
         json_extract_string(raw, {{field_paths}}) AS texts, {{money_digits}}
  FROM fresh
), parsed AS (
  -- a path resolves only inside an object: the document's own type is read (a third parse) only when none did
  SELECT *, CASE WHEN list_count(types) > 0 THEN 'OBJECT' ELSE json_type(raw) END AS shape
  FROM fields
), typed AS (
  -- <typed_fields>: each field as its column, NULL unless its JSON type is accepted for its kind; money from its
  -- digits, never through a double. <transaction_at>: transactionDate read in the configured zone, NULL when
  -- it is not a string (<date_is_text>) or matches none of the accepted shapes (transaction-date.ts)
  SELECT *, {{typed_fields}},
         CASE WHEN {{date_is_text}} THEN {{transaction_at}} END AS transaction_at
  FROM parsed
), checked AS (
  -- <record_columns>: the typed columns; <status_classes>: reconciliation.statusMap as WHEN/THEN pairs;
  -- <field_problems>: one CASE per check (wrong type, missing, empty, out of range, inexact money), joined by '; ';
  -- <clean>: true when none of them can fire (then they are not evaluated)
  SELECT record_index, raw, {{record_columns}},
         CASE status {{status_classes}} ELSE 'unknown' END AS status_class,
         transaction_at, record_hash,
         CASE WHEN shape <> 'OBJECT' THEN 'not a JSON object but ' || {{shape_in_words}}
              WHEN {{clean}} THEN NULL
              ELSE nullif(concat_ws('; ', {{field_problems}}), '') END AS problem,
         CASE WHEN {{date_is_text}} AND transaction_at IS NULL
              THEN {{unparseable_date_reason}} || to_json({{date_text}})::VARCHAR END AS date_problem
  FROM typed
)
-- The raw text is kept only for records bound for the quarantine: memory stays small for big responses.
SELECT * REPLACE (CASE WHEN problem IS NOT NULL OR date_problem IS NOT NULL THEN raw END AS raw),
       NULL::BIGINT AS superseded_by,
       false AS is_unchanged
FROM checked
