/**
 * The SQL that reads a landed sales response into typed rows (sql/load/landed_sales.sql, its per-field parts
 * written from the one list of the Sales record's fields) and the record hash that lets an unchanged record
 * skip it; pipelines/extract/load.ts runs it and upserts the result.
 */
import type { Config } from '../../config/schema.js';
import { fillSqlTemplate, sqlString } from '../../core/sql.js';
import { sqlText } from '../../core/paths.js';
import { transactionAtSql, unparseableDateReason } from './transaction-date.js';
import { guardedSurrogatePattern } from '../../sources/partner-api/lone-surrogates.js';

/** Why a record holding a lone surrogate escape is quarantined (it is kept with the escape as text). */
const loneSurrogateReason =
  'a string holds a lone surrogate escape (such as \\ud800), which is not text: kept in sales_quarantine as received';

type FieldKind = 'integer' | 'text' | 'money' | 'boolean';

/**
 * The Sales record of the spec: JSON name, column, kind, required. Unknown fields stay in the landed file. Exported
 * for bench/duckdb-floor.ts, which reads the same fields.
 */
export const salesRecordFields: { name: string; column: string; kind: FieldKind; required: boolean }[] = [
  { name: 'transactionId', column: 'transaction_id', kind: 'integer', required: true },
  { name: 'partnerReference', column: 'partner_reference', kind: 'text', required: true },
  { name: 'productId', column: 'product_id', kind: 'integer', required: true },
  { name: 'productName', column: 'product_name', kind: 'text', required: false },
  { name: 'salesPrice', column: 'sales_price', kind: 'money', required: true },
  { name: 'partnerCostPrice', column: 'partner_cost_price', kind: 'money', required: true },
  { name: 'status', column: 'status', kind: 'text', required: true },
  { name: 'transactionDate', column: 'transaction_date_raw', kind: 'text', required: true },
  { name: 'countryCode', column: 'country_code', kind: 'text', required: false },
  { name: 'salesCurrencyCode', column: 'sales_currency_code', kind: 'text', required: true },
  { name: 'salesCurrencySymbol', column: 'sales_currency_symbol', kind: 'text', required: false },
  { name: 'key', column: 'key', kind: 'text', required: false },
  // Written into landing files by security.keys "hash" in place of the whole key (core/key-protection.ts).
  { name: 'keyHmac', column: 'key_hmac', kind: 'text', required: false },
  { name: 'keySentToCustomer', column: 'key_sent_to_customer', kind: 'boolean', required: false },
];

/** json_type() names accepted for each kind, and how the kind is named in a reason. */
const accepted: Record<FieldKind, { types: string[]; described: string }> = {
  integer: { types: ['BIGINT', 'UBIGINT'], described: 'an integer' },
  text: { types: ['VARCHAR'], described: 'a string' },
  money: { types: ['BIGINT', 'UBIGINT', 'DOUBLE'], described: 'a number' },
  boolean: { types: ['BOOLEAN'], described: 'true or false' },
};

export const loadedColumns = [
  ...salesRecordFields.map((f) => f.column),
  'status_class',
  'transaction_at',
  'record_hash',
];

/** A landed response as DuckDB reads it: its gzip file, or the download's uncompressed copy of the same bytes. */
export interface LandedFile {
  path: string;
  compressed: boolean;
}

/**
 * Where the records to type come from: every record of the landed file, or those the hashing pass (load.ts) left
 * in `landed_hashes` with their raw JSON because it did not find them stored unchanged.
 */
export type RecordsToType = { file: LandedFile } | 'not stored unchanged';

/** Each record of a landed file: its 0-based index, its raw JSON and its record hash, in one read of the file. */
export function landedRecordsSql(file: LandedFile, config: Config): string {
  const compression = file.compressed ? 'gzip' : 'uncompressed';
  return `SELECT ordinality - 1 AS record_index, json AS raw, ${recordHashSql('json', config)} AS record_hash
  FROM read_json_objects(${sqlString(file.path)}, format = 'array', compression = '${compression}') WITH ORDINALITY`;
}

/**
 * One row per record to type (`records`): its 0-based index, its raw JSON, each field typed (NULL when absent or
 * unusable), `problem` (why it cannot be loaded, or NULL) and `date_problem` (why transaction_at is NULL).
 * The query is `sql/load/landed_sales.sql`; its per-field parts are written here from `salesRecordFields`.
 */
export function stagingSql(records: RecordsToType, config: Config): string {
  const paths = `[${salesRecordFields.map((f) => sqlString(`$.${f.name}`)).join(', ')}]`;
  const type = (i: number) => `types[${i + 1}]`;
  const text = (i: number) => `texts[${i + 1}]`;
  const digits = (name: string) => `digits_${name}`;
  const dateIndex = salesRecordFields.findIndex((f) => f.name === 'transactionDate');

  const moneyDigits = salesRecordFields
    .filter((f) => f.kind === 'money')
    // The number's own characters, found in the raw text and checked against the parsed value below.
    .map(
      (f) =>
        `regexp_extract(raw, ${sqlString(`"${f.name}"\\s*:\\s*(-?[0-9]+(?:\\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)`)}, 1) ` +
        `AS ${digits(f.name)}`,
    );

  const values = salesRecordFields.map((f, i) => {
    const ok = `${type(i)} IN (${accepted[f.kind].types.map(sqlString).join(', ')})`;
    switch (f.kind) {
      case 'integer':
        return `CASE WHEN ${ok} THEN TRY_CAST(${text(i)} AS BIGINT) END AS ${f.column}`;
      case 'text':
        return `CASE WHEN ${ok} THEN ${text(i)} END AS ${f.column}`;
      case 'boolean':
        return `CASE WHEN ${ok} THEN ${text(i)} = 'true' END AS ${f.column}`;
      case 'money':
        return `CASE WHEN ${ok} THEN TRY_CAST(${digits(f.name)} AS DECIMAL(18,4)) END AS ${f.column}`;
      default:
        throw new Error(`no rule types a field of kind ${(f as { kind: string }).kind}`);
    }
  });

  const problems = salesRecordFields.flatMap((f, i) => {
    const present = `(${type(i)} IS NOT NULL AND ${type(i)} <> 'NULL')`;
    const ok = `${type(i)} IN (${accepted[f.kind].types.map(sqlString).join(', ')})`;
    const checks = [
      `CASE WHEN ${present} AND NOT (${ok}) ` +
        `THEN ${sqlString(`${f.name} is `)} || ${describeJsonType(type(i))} || ` +
        `${sqlString(`, expected ${accepted[f.kind].described}`)} END`,
    ];
    if (f.required) checks.push(`CASE WHEN NOT ${present} THEN ${sqlString(`missing ${f.name}`)} END`);
    if (f.required && f.kind === 'text')
      checks.push(`CASE WHEN ${ok} AND trim(${text(i)}) = '' THEN ${sqlString(`${f.name} is empty`)} END`);
    if (f.kind === 'integer') {
      checks.push(
        `CASE WHEN ${ok} AND TRY_CAST(${text(i)} AS BIGINT) IS NULL ` +
          `THEN ${sqlString(`${f.name} `)} || ${text(i)} || ' is out of range' END`,
      );
    }
    if (f.kind === 'money') {
      const d = digits(f.name);
      checks.push(`CASE WHEN ${ok} THEN CASE
          WHEN ${d} = '' OR TRY_CAST(${d} AS DOUBLE) IS DISTINCT FROM TRY_CAST(${text(i)} AS DOUBLE)
            THEN ${sqlString(`${f.name}: its digits could not be read exactly`)}
          WHEN TRY_CAST(${d} AS DECIMAL(18,4)) IS NULL
            THEN ${sqlString(`${f.name} `)} || ${d} || ' is out of range for DECIMAL(18,4)'
          WHEN regexp_matches(${d}, '[eE]') AND TRY_CAST(${d} AS DECIMAL(38,12)) <> TRY_CAST(${d} AS DECIMAL(18,4))
            OR NOT regexp_matches(${d}, '[eE]') AND regexp_matches(${d}, '\\.[0-9]{4}[0-9]*[1-9]')
            THEN ${sqlString(`${f.name} `)} || ${d} || ' has more than 4 decimal places'
        END END`);
    }
    return checks;
  });

  // A record none of whose checks can fire, told from its typed columns (NULL unless the type was accepted, the
  // integer in range, the money read): the reasons, ~40 CASEs joined (2 of the 8 s a million records took), are
  // written only for the few that may have one. Money is plainly exact when its digits are the number's text.
  const clean = salesRecordFields.map((f, i) => {
    const typed = `${f.column} IS NOT NULL`;
    const d = digits(f.name);
    const ok =
      f.kind === 'money'
        ? `${typed} AND ${d} = ${text(i)} AND regexp_full_match(${d}, '-?[0-9]+(\\.[0-9]{1,4})?')`
        : f.required && f.kind === 'text'
          ? `trim(${f.column}) <> ''`
          : typed;
    return f.required ? `(${ok})` : `(${type(i)} IS NULL OR ${type(i)} = 'NULL' OR ${ok})`;
  });
  // Only a text holding `\\u` can hold a guarded lone surrogate: the pattern is looked for there.
  clean.push(`NOT contains(raw, ${sqlString('\\\\u')})`);

  const statusClass = Object.entries(config.reconciliation.statusMap)
    .map(([status, cls]) => `WHEN ${sqlString(status)} THEN ${sqlString(cls)}`)
    .join(' ');

  return fillSqlTemplate('sql/load/landed_sales.sql', sqlText('load', 'landed_sales.sql'), {
    fresh_records:
      records === 'not stored unchanged'
        ? 'SELECT record_index, raw, record_hash FROM landed_hashes WHERE stored_transaction_id IS NULL'
        : landedRecordsSql(records.file, config),
    field_paths: paths,
    money_digits: moneyDigits.join(', '),
    typed_fields: values.join(',\n         '),
    date_is_text: `${type(dateIndex)} = 'VARCHAR'`,
    transaction_at: transactionAtSql(text(dateIndex), config.timezone),
    record_columns: loadedColumns
      .filter((c) => c !== 'status_class' && c !== 'transaction_at' && c !== 'record_hash')
      .join(', '),
    status_classes: statusClass,
    shape_in_words: describeJsonType('shape'),
    clean: clean.join('\n              AND '),
    // Issue 34: a lone surrogate the download made text (sources/partner-api/lone-surrogates.ts) quarantines its
    // record.
    field_problems: [
      ...problems,
      `CASE WHEN regexp_matches(raw, ${sqlString(guardedSurrogatePattern)}) THEN ${sqlString(loneSurrogateReason)} END`,
    ].join(',\n                 '),
    unparseable_date_reason: sqlString(`${unparseableDateReason}: `),
    date_text: text(dateIndex),
  });
}

/**
 * A 64-bit hash of a record's JSON text together with what types it (the time zone of offset-less dates and the
 * status map): the same record under changed settings is parsed again, never taken from an older typing. DuckDB's
 * `hash` instead of an md5: at 1M records 0.05 against 0.7 s of the one thread that types a window. 64 bits are
 * enough because a match is also a match of the transaction id (load.ts); a DuckDB whose `hash` differs (an
 * upgrade) only has every stored record typed once more.
 */
export function recordHashSql(json: string, config: Config): string {
  const typing = JSON.stringify({ timezone: config.timezone, statusMap: config.reconciliation.statusMap });
  return `hash(${json}, ${sqlString(typing)})::UHUGEINT`;
}

/**
 * The transaction id as it reads in a record's raw text (the first `"transactionId": <integer>`), without parsing
 * the JSON: the hashing pass matches a record with a stored sale only when this is that sale's id too. Where it
 * reads otherwise than the parsed field (a nested object holding the name first), the record is typed: the safe way.
 */
export function rawTransactionIdSql(json: string): string {
  return `TRY_CAST(regexp_extract(${json}, ${sqlString('"transactionId"\\s*:\\s*(-?[0-9]+)')}, 1) AS BIGINT)`;
}

/** json_type()'s name in words, for reasons. */
function describeJsonType(expression: string): string {
  return `CASE ${expression} WHEN 'VARCHAR' THEN 'a string'
    WHEN 'BIGINT' THEN 'an integer' WHEN 'UBIGINT' THEN 'an integer'
    WHEN 'DOUBLE' THEN 'a number' WHEN 'BOOLEAN' THEN 'a boolean'
    WHEN 'OBJECT' THEN 'an object' WHEN 'ARRAY' THEN 'an array'
    WHEN 'NULL' THEN 'null' ELSE lower(${expression}) END`;
}
