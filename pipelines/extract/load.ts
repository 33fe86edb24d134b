/**
 * Loads one landed sales response (a gzip JSON array) into `sales`, entirely in DuckDB (`read_json_objects`,
 * checked and typed in SQL, upserted), so memory stays flat. Nothing is dropped: a bad or superseded record goes
 * whole to `sales_quarantine` with its reason; money is cast from the JSON's own digits. A record stored unchanged
 * (same hash of its JSON and typing settings, same transaction id) is not parsed again: a re-fetched window costs
 * a hash.
 */
import type { Config } from '../../config/schema.js';
import type { Params, Warehouse } from '../../core/warehouse.js';
import { sqlString } from '../../core/sql.js';
import type { ExtractWindow } from './plan.js';
import { landedRecordsSql, loadedColumns, rawTransactionIdSql, stagingSql, type LandedFile } from './landed-staging.js';

/** A response body kept in the landing directory. */
export interface LandedSales {
  /** The .json.gz file. */
  path: string;
  /** The same records uncompressed (the download's copy, uncompressed-copy.ts): read instead of `path`. */
  uncompressedCopy?: string;
  runId: string;
  /** The provider operation that answered, e.g. `salesByPeriod`. */
  endpoint: string;
  fetchedAt: Date;
  bytes: number;
  /** The period search it answered, if any: sets the sale's seen-by flag and window, and scopes quarantine rows. */
  window?: ExtractWindow;
  /**
   * The records the client counted as they arrived, when known: with a window, lets a load that can hold no stored
   * sale skip the hashing pass (hashPassNeeded).
   */
  records?: number;
}

/** What one response held; `records = loaded + notLoaded` always. */
export interface LoadCounts {
  records: number;
  /** Distinct sales upserted. */
  loaded: number;
  /** Records not loaded at all: bad fields, or an earlier duplicate of a transactionId in the same response. */
  notLoaded: number;
  /** Rows written to `sales_quarantine` (not-loaded records plus loaded records with an unreadable date). */
  quarantined: number;
  /** Of the not-loaded records, those superseded by a later record with the same transactionId. */
  duplicates: number;
  unparseableDates: number;
  /** Sales seen for the first time. */
  newSales: number;
  /** Known sales whose status differs from the last observation. */
  statusChanges: number;
}

/**
 * Loads `landed` into `sales`, `sales_status_history`, `sales_quarantine` and `landing_files`.
 * Call it inside a transaction (the caller commits it together with its checkpoint).
 */
export async function loadLandedSales(warehouse: Warehouse, config: Config, landed: LandedSales): Promise<LoadCounts> {
  const window = landed.window;
  // Each statement named in its error: an out-of-memory says which part of the load, under which memoryLimit.
  const step = (name: string, sql: string, params?: Params) => warehouse.step(name, () => warehouse.run(sql, params));
  try {
    // memoryLimit "auto": room for this file's records ("typing and checking" is where a tight limit failed
    // first), whatever the sales held; the hashing pass holds the raw JSON of the records it finds changed, so the
    // client's count sizes it before, and a look-up (no count) is sized by the file's own count after it.
    if (landed.records !== undefined) await warehouse.fitMemoryToLoad(landed.records);
    const hashed = await hashPassNeeded(warehouse, config, landed);
    const seen = hashed
      ? await matchUnchanged(warehouse, config, landed)
      : await assumeAllNew(warehouse, landed.records!);
    if (landed.records === undefined) await warehouse.fitMemoryToLoad(seen.records);
    // Nothing new in the file: the staging query only gives landed_sales its columns.
    const staging = stagingSql(hashed ? 'not stored unchanged' : { file: recordsFile(landed) }, config);
    // One thread reads the gzip file and types its records: a second one made it slower, not faster (1M records:
    // 10.3–11.1 s on one thread; 12.0–16.6 s and up to twice the CPU on two, beside another busy core), and in
    // `extract` the next window's download needs that core.
    await warehouse.step('typing and checking the new or changed records', () =>
      warehouse.withOneThread(() =>
        warehouse.run(
          `CREATE OR REPLACE TEMP TABLE landed_sales AS ` +
            `${seen.records === seen.unchanged ? `SELECT * FROM (${staging}) LIMIT 0` : staging}`,
        ),
      ),
    );
    // The changed records' raw JSON is typed now: its memory goes back before the sales are written.
    if (hashed) await warehouse.run('DROP TABLE landed_hashes');
    // The unchanged records need only their sale: they are not compared, rewritten or history (just seen again).
    await step(
      'adding the unchanged records',
      `INSERT INTO landed_sales BY NAME SELECT record_index, transaction_id, true AS is_unchanged FROM ` +
        `landed_unchanged`,
    );
    // Only repeated transactionIds among loadable records: normally none, so this stays tiny.
    await step(
      'finding repeated transactionIds',
      `CREATE OR REPLACE TEMP TABLE landed_sales_duplicates AS
      SELECT transaction_id, max(record_index) AS kept_index, count(*) AS occurrences
      FROM landed_sales WHERE problem IS NULL GROUP BY transaction_id HAVING count(*) > 1`,
    );
    await markSupersededDuplicates(warehouse, config, recordsFile(landed));
    await step(
      'choosing the records to load',
      `CREATE OR REPLACE TEMP VIEW landed_sales_kept AS
      SELECT * EXCLUDE (raw, problem, date_problem, superseded_by) FROM landed_sales
      WHERE problem IS NULL AND superseded_by IS NULL`,
    );

    // A re-fetched window replaces its earlier quarantine rows instead of adding to them.
    if (window) {
      await step(
        "replacing the window's quarantine",
        `DELETE FROM sales_quarantine WHERE window_start = $1::DATE AND window_end = $2::DATE AND by_flag = $3`,
        [window.start, window.end, window.flag],
      );
    } else {
      await step("replacing the file's quarantine", `DELETE FROM sales_quarantine WHERE landing_path = $1`, [
        landed.path,
      ]);
    }
    await step(
      'quarantining the records that cannot be loaded',
      `INSERT INTO sales_quarantine (landing_path, record_index, window_start, window_end, by_flag, transaction_id,
         reason, raw, run_id, quarantined_at)
       SELECT $1, record_index, $2::DATE, $3::DATE, $4, transaction_id,
              concat_ws('; ', problem,
                'duplicate transactionId ' || transaction_id || ': record ' || superseded_by ||
                  ' of the same response was loaded instead',
                date_problem),
              raw, $5, $6::TIMESTAMPTZ
       FROM landed_sales
       WHERE problem IS NOT NULL OR date_problem IS NOT NULL OR superseded_by IS NOT NULL
       ORDER BY record_index`,
      [
        landed.path,
        window?.start ?? null,
        window?.end ?? null,
        window?.flag ?? null,
        landed.runId,
        landed.fetchedAt.toISOString(),
      ],
    );

    // What the stored row of each new or changed record holds before this response (none: a new sale): its status
    // for the history, its seen columns for the row that replaces it. Joined with `sales` once, by transaction id.
    await step(
      'finding the stored sales the records change',
      `CREATE OR REPLACE TEMP TABLE landed_sales_stored AS
      SELECT t.transaction_id, t.status AS previous_status, ${storedSeenColumns.map((c) => `t.${c}`).join(', ')}
      FROM sales t SEMI JOIN (SELECT transaction_id FROM landed_sales_kept WHERE NOT is_unchanged) k
        ON t.transaction_id = k.transaction_id`,
    );
    await step(
      'comparing with the stored sales',
      `CREATE OR REPLACE TEMP TABLE landed_sales_changes AS
      SELECT k.transaction_id, k.status, t.previous_status, t.transaction_id IS NULL AS is_new
      FROM (SELECT * FROM landed_sales_kept WHERE NOT is_unchanged) k
      LEFT JOIN landed_sales_stored t ON t.transaction_id = k.transaction_id
      WHERE t.transaction_id IS NULL OR t.previous_status IS DISTINCT FROM k.status`,
    );
    await step(
      'recording status changes in sales_status_history',
      `INSERT INTO sales_status_history (transaction_id, status, previous_status, observed_at, run_id)
       SELECT transaction_id, status, previous_status, $1::TIMESTAMPTZ, $2 FROM landed_sales_changes
       ORDER BY transaction_id`,
      [landed.fetchedAt.toISOString(), landed.runId],
    );
    const seenParams = [
      landed.fetchedAt.toISOString(),
      window?.flag === 'paid',
      window?.flag === 'paid' ? window.start : null,
      window?.flag === 'created',
      window?.flag === 'created' ? window.start : null,
      landed.runId,
    ];
    // A changed sale is replaced, not updated: DuckDB holds an UPDATE's new values in memory until it commits (a
    // window of 1M changed sales did not fit in 256MB), while a DELETE marks rows and an INSERT spills. So memory
    // follows the window, not the sales held (the MERGE this replaces joined the window with all of `sales`).
    await step(
      'removing the stored rows of the changed sales (their new rows follow)',
      `DELETE FROM sales WHERE transaction_id IN (SELECT transaction_id FROM landed_sales_stored)`,
    );
    await step('inserting the new and changed sales into sales', insertSql(), seenParams);
    await step(
      'marking the unchanged sales seen',
      `UPDATE sales SET ${seenColumns('sales')
        .filter(([column]) => column !== 'first_seen_at')
        .map(([column, value]) => `${column} = ${value}`)
        .join(', ')}
       FROM (SELECT transaction_id FROM landed_sales_kept WHERE is_unchanged) AS unchanged
       WHERE sales.transaction_id = unchanged.transaction_id`,
      seenParams,
    );

    const counts = await countsOfLoad(warehouse, landed.path);
    await step(
      'recording the file in landing_files',
      `INSERT INTO landing_files (path, run_id, endpoint, window_start, window_end, by_flag, fetched_at, bytes, records,
         quarantined)
       VALUES ($1, $2, $3, $4::DATE, $5::DATE, $6, $7::TIMESTAMPTZ, $8, $9, $10)
       ON CONFLICT (path) DO UPDATE SET records = excluded.records, quarantined = excluded.quarantined`,
      [
        landed.path,
        landed.runId,
        landed.endpoint,
        window?.start ?? null,
        window?.end ?? null,
        window?.flag ?? null,
        landed.fetchedAt.toISOString(),
        landed.bytes,
        counts.records,
        counts.quarantined,
      ],
    );
    return counts;
  } finally {
    await warehouse
      .run(
        'DROP VIEW IF EXISTS landed_sales_kept; DROP TABLE IF EXISTS landed_sales_changes; ' +
          'DROP TABLE IF EXISTS landed_sales_stored; DROP TABLE IF EXISTS landed_sales_duplicates; ' +
          'DROP TABLE IF EXISTS landed_sales; DROP TABLE IF EXISTS landed_unchanged; ' +
          'DROP TABLE IF EXISTS landed_hashes',
      )
      .catch(() => undefined);
  }
}

/** The file the load reads the records from: the uncompressed copy when there is one (no gunzip on its one thread). */
function recordsFile(landed: LandedSales): LandedFile {
  return landed.uncompressedCopy
    ? { path: landed.uncompressedCopy, compressed: false }
    : { path: landed.path, compressed: true };
}

/** How many records the file holds, and how many of them are stored unchanged (landed_unchanged lists those). */
interface Seen {
  records: number;
  unchanged: number;
}

/**
 * Whether the file may hold sales stored unchanged, so that hashing every record first (a whole read of the file,
 * 1.6 s a million records on one thread) can spare the typing of them. A window whose dates hold almost no stored
 * sale (the first load of a month: the paid window before the created one, a back-fill) is typed whole instead: its
 * few unchanged records are typed again and replace their identical rows, the same result, for less than the pass
 * costs. Without the client's count, or for a lookup, the pass always runs.
 */
export async function hashPassNeeded(warehouse: Warehouse, config: Config, landed: LandedSales): Promise<boolean> {
  const { window, records } = landed;
  if (!window || records === undefined) return true;
  const stored = await warehouse.one<{ n: string }>(
    `SELECT count(*) AS n FROM sales WHERE ${datedWithin(config, window, 0)}`,
  );
  return Number(stored!.n) >= records * unchangedShareWorthHashing;
}

/** A stored sale dated within the window's days in the configured zone, or `margin` days either side of them. */
function datedWithin(config: Config, window: ExtractWindow, margin: number): string {
  const zone = sqlString(config.timezone);
  return `transaction_at >= timezone(${zone}, (${sqlString(window.start)}::DATE - ${margin})::TIMESTAMP)
    AND transaction_at < timezone(${zone}, (${sqlString(window.end)}::DATE + ${margin + 1})::TIMESTAMP)`;
}

/** Below this share of stored sales among a window's records, typing them all costs less than hashing first. */
const unchangedShareWorthHashing = 0.05;

/**
 * Records stored unchanged (same JSON, typed under the same settings) are not parsed again: the paid and the
 * created window bring the same sales, and a re-fetch within the lookback brings mostly unchanged ones. One read
 * of the file hashes each record, finds it among the stored sales, and keeps the raw JSON of the others for the
 * typing (a second read of the file cost more: the created October window of the 1M month, 3.9 → 3.0 s).
 */
async function matchUnchanged(warehouse: Warehouse, config: Config, landed: LandedSales): Promise<Seen> {
  const { window } = landed;
  // A window's records are looked for among the stored sales of its days and one either side (the provider dates a
  // window by its own clock, and a sale may be paid after it was created; one dated further off is typed again: the
  // same result), whose narrow hash table the file streams past. DuckDB, guessing ~40 records for a file, would
  // build the table on the records instead, raw JSON and all, which spilled at 10M. A look-up's one record keeps
  // DuckDB's choice, against every stored sale.
  const stored = `SELECT record_hash, transaction_id FROM sales
    WHERE ${window ? datedWithin(config, window, 1) : 'transaction_at IS NOT NULL'}`;
  const buildSide = window ? 'build_side_probe_side' : '';
  // A sale with an unreadable date is read again: its quarantine row belongs to each window that brings it.
  await warehouse.step('reading and hashing the landed records, matching them with the sales stored unchanged', () =>
    warehouse.withOneThread(() =>
      warehouse.withSetting('disabled_optimizers', buildSide, () =>
        warehouse.run(`CREATE OR REPLACE TEMP TABLE landed_hashes AS
        SELECT landed.record_index, landed.record_hash, stored.transaction_id AS stored_transaction_id,
               CASE WHEN stored.transaction_id IS NULL THEN landed.raw END AS raw
        FROM (${landedRecordsSql(recordsFile(landed), config)}) AS landed
        LEFT JOIN (${stored}) AS stored
          ON stored.record_hash = landed.record_hash AND stored.transaction_id = ${rawTransactionIdSql('landed.raw')}`),
      ),
    ),
  );
  await warehouse.run(`CREATE OR REPLACE TEMP TABLE landed_unchanged AS
    SELECT record_index, stored_transaction_id AS transaction_id FROM landed_hashes
    WHERE stored_transaction_id IS NOT NULL`);
  const seen = (await warehouse.one<{ records: string; unchanged: string }>(
    'SELECT (SELECT count(*) FROM landed_hashes) AS records, (SELECT count(*) FROM landed_unchanged) AS unchanged',
  ))!;
  return { records: Number(seen.records), unchanged: Number(seen.unchanged) };
}

/** No hashing pass: every record is typed (the client's count sizes the memory; the load counts them again). */
async function assumeAllNew(warehouse: Warehouse, records: number): Promise<Seen> {
  await warehouse.run('CREATE OR REPLACE TEMP TABLE landed_unchanged (record_index BIGINT, transaction_id BIGINT)');
  return { records, unchanged: 0 };
}

/**
 * Marks every loadable record followed by a later one with the same transactionId (the last wins), and reads
 * their raw text again from the file so they go to the quarantine whole. Normally there are none.
 */
async function markSupersededDuplicates(warehouse: Warehouse, config: Config, file: LandedFile): Promise<void> {
  const duplicates = await warehouse.one<{ n: string }>('SELECT count(*) AS n FROM landed_sales_duplicates');
  if (Number(duplicates!.n) === 0) return;
  await warehouse.run(`UPDATE landed_sales SET superseded_by = d.kept_index FROM landed_sales_duplicates d
    WHERE landed_sales.transaction_id = d.transaction_id AND landed_sales.problem IS NULL
      AND landed_sales.record_index < d.kept_index`);
  await warehouse.run(`UPDATE landed_sales SET raw = again.raw
    FROM (${landedRecordsSql(file, config)}) again
    WHERE landed_sales.record_index = again.record_index AND landed_sales.superseded_by IS NOT NULL
      AND landed_sales.raw IS NULL`);
}

async function countsOfLoad(warehouse: Warehouse, landingPath: string): Promise<LoadCounts> {
  const row = (await warehouse.one<Record<string, string>>(
    `SELECT
      (SELECT count(*) FROM landed_sales) AS records,
      (SELECT count(*) FROM landed_sales_kept) AS loaded,
      (SELECT count(*) FROM landed_sales WHERE problem IS NOT NULL) AS unloadable,
      (SELECT count(*) FROM sales_quarantine WHERE landing_path = $1) AS quarantined,
      (SELECT coalesce(sum(occurrences - 1), 0) FROM landed_sales_duplicates) AS duplicates,
      (SELECT count(*) FROM landed_sales WHERE date_problem IS NOT NULL) AS unparseable_dates,
      (SELECT count(*) FILTER (WHERE is_new) FROM landed_sales_changes) AS new_sales,
      (SELECT count(*) FILTER (WHERE NOT is_new) FROM landed_sales_changes) AS status_changes`,
    [landingPath],
  ))!;
  const n = (key: string) => Number(row[key]);
  return {
    records: n('records'),
    loaded: n('loaded'),
    notLoaded: n('unloadable') + n('duplicates'),
    quarantined: n('quarantined'),
    duplicates: n('duplicates'),
    unparseableDates: n('unparseable_dates'),
    newSales: n('new_sales'),
    statusChanges: n('status_changes'),
  };
}

/**
 * What seeing a sale sets, as [column, expression] (parameters $1–$6: when, by paid and its window, by created and its
 * window, the run): `stored` names the sale's stored row, NULL for a new sale.
 */
function seenColumns(stored: string): [string, string][] {
  return [
    ['first_seen_at', `coalesce(${stored}.first_seen_at, $1::TIMESTAMPTZ)`],
    ['last_seen_at', '$1::TIMESTAMPTZ'],
    ['seen_by_paid', `coalesce(${stored}.seen_by_paid, false) OR $2::BOOLEAN`],
    ['paid_window_start', `coalesce($3::DATE, ${stored}.paid_window_start)`],
    ['seen_by_created', `coalesce(${stored}.seen_by_created, false) OR $4::BOOLEAN`],
    ['created_window_start', `coalesce($5::DATE, ${stored}.created_window_start)`],
    ['last_run_id', '$6::VARCHAR'],
  ];
}

/** The stored columns seenColumns reads (a replaced sale carries them into its new row), read off its expressions. */
const storedSeenColumns = seenColumns('stored')
  .filter(([column, value]) => value.includes(`stored.${column}`))
  .map(([column]) => column);

/** The new and changed sales, each with its seen columns: a changed one keeps what its stored row had seen. */
function insertSql(): string {
  return `INSERT INTO sales BY NAME
    SELECT ${loadedColumns.map((c) => `incoming.${c}`).join(', ')},
           ${seenColumns('stored')
             .map(([column, value]) => `${value} AS ${column}`)
             .join(',\n           ')}
    FROM (SELECT * FROM landed_sales_kept WHERE NOT is_unchanged) AS incoming
    LEFT JOIN landed_sales_stored AS stored ON stored.transaction_id = incoming.transaction_id`;
}
