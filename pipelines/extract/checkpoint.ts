/**
 * The completed-window state of extraction (`extract_windows`): read to plan a run, written in the same
 * transaction as the window's rows, so a crash can never leave a window marked done without its data.
 */
import type { Warehouse } from '../../core/warehouse.js';
import type { LoadCounts } from './load.js';
import type { CompletedWindow, ExtractWindow, SearchFlag } from './plan.js';

export async function completedWindows(warehouse: Warehouse, timeZone: string): Promise<CompletedWindow[]> {
  const rows = await warehouse.all<{ start: string; end: string; flag: SearchFlag; completed_on: string }>(
    `SELECT strftime(window_start, '%Y-%m-%d') AS start, strftime(window_end, '%Y-%m-%d') AS "end", by_flag AS flag,
            strftime(timezone($1, completed_at), '%Y-%m-%d') AS completed_on
     FROM extract_windows ORDER BY window_start, by_flag`,
    [timeZone],
  );
  return rows.map((r) => ({ start: r.start, end: r.end, flag: r.flag, completedOn: r.completed_on }));
}

/**
 * The window's checkpoint. `completedAt` is when its answer was fetched (its headers arrived): the days that
 * had ended by then are complete in it, however long the load took after (or the next download ran during).
 */
export async function recordCompletedWindow(
  warehouse: Warehouse,
  window: ExtractWindow,
  runId: string,
  counts: LoadCounts,
  landingPath: string,
  completedAt: Date,
): Promise<void> {
  await warehouse.run(
    `INSERT INTO extract_windows (window_start, window_end, by_flag, run_id, completed_at, records, quarantined,
       landing_path)
     VALUES ($1::DATE, $2::DATE, $3, $4, $8::TIMESTAMPTZ, $5, $6, $7)
     ON CONFLICT (window_start, window_end, by_flag) DO UPDATE SET run_id = excluded.run_id,
       completed_at = excluded.completed_at,
       records = excluded.records, quarantined = excluded.quarantined, landing_path = excluded.landing_path`,
    [
      window.start,
      window.end,
      window.flag,
      runId,
      counts.records,
      counts.quarantined,
      landingPath,
      completedAt.toISOString(),
    ],
  );
}
