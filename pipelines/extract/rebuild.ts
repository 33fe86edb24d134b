/**
 * `extract --from-landing`: rebuilds `sales`, `sales_status_history`, `sales_quarantine`, `landing_files`
 * and the window checkpoints from the archived responses alone, without calling the API. Each landed file
 * not yet in `landing_files` is loaded by extract's own loader, in the order it was fetched, with the run,
 * window and fetch time of its `.meta.json` record: on an empty database the result is the original
 * extraction's, table for table. A file that cannot be loaded is skipped and named (it stays on disk).
 */
import type { Config } from '../../config/schema.js';
import { UsageError } from '../../core/errors.js';
import { protectLandingFile } from '../../core/key-protected-file.js';
import { guardGzipFile } from '../../sources/partner-api/lone-surrogates.js';
import type { Output } from '../../core/output.js';
import type { Warehouse } from '../../core/warehouse.js';
import { recordRun } from '../../core/run-trace.js';
import { recordCompletedWindow } from './checkpoint.js';
import { landedSalesFiles, landingRoot, type LandedFile } from './landing.js';
import { loadLandedSales } from './load.js';
import { statSync } from 'node:fs';
import { keyProtectionFor } from './key-mode.js';

export interface RebuildOptions {
  /** Only the windows overlapping [from, to] (and the lookups of the months it touches); default: all. */
  from?: string;
  to?: string;
  parentRunId?: string;
}

export interface RebuildSummary {
  runId: string;
  landingDir: string;
  /** Landed sales files found, loaded now, already in the database, outside the range, failed. */
  files: {
    found: number;
    loaded: number;
    alreadyLoaded: number;
    outOfRange: number;
    failed: string[];
    withoutRecord: number;
  };
  records: number;
  loaded: number;
  quarantined: number;
  newSales: number;
  statusChanges: number;
}

export async function rebuildFromLanding(
  warehouse: Warehouse,
  config: Config,
  options: RebuildOptions,
  output: Output,
): Promise<RebuildSummary> {
  if ((options.from === undefined) !== (options.to === undefined))
    throw new UsageError(
      '--from and --to go together with --from-landing: give both, or neither to rebuild everything.',
    );
  if (options.from && options.to && options.from > options.to)
    throw new UsageError(`--from (${options.from}) is after --to (${options.to}).`);
  const root = landingRoot(config);
  return recordRun(
    warehouse,
    'extract',
    { fromLanding: root, from: options.from ?? null, to: options.to ?? null },
    async (run) => {
      const found = landedSalesFiles(root);
      const known = new Set(
        (await warehouse.all<{ path: string }>('SELECT path FROM landing_files')).map((r) => r.path),
      );
      const inRange = found.filter((f) => overlaps(f, options));
      const todo = inRange.filter((f) => !known.has(f.path));
      const summary: RebuildSummary = {
        runId: run.runId,
        landingDir: root,
        files: {
          found: found.length,
          loaded: 0,
          alreadyLoaded: inRange.length - todo.length,
          outOfRange: found.length - inRange.length,
          failed: [],
          withoutRecord: 0,
        },
        records: 0,
        loaded: 0,
        quarantined: 0,
        newSales: 0,
        statusChanges: 0,
      };
      output.info(
        `${found.length} landed sales responses in ${root}: ${todo.length} to load, ${summary.files.alreadyLoaded} ` +
          `already in the database, ${summary.files.outOfRange} outside the range`,
      );
      // A protected database takes no whole key: archived responses that still hold some are masked first.
      const keys = await keyProtectionFor(warehouse, config);
      for (const [index, file] of todo.entries()) {
        if (keys.mode !== 'store') {
          const masked = await protectLandingFile(file.path, keys);
          if (masked > 0)
            output.warn(
              `${file.path} held ${masked} whole keys: masked in place (security.keys "${keys.mode}") before loading`,
            );
        }
        if (!file.recorded) {
          summary.files.withoutRecord++;
          output.warn(
            `${file.path} has no .meta.json record (written by an older pinrecon, or its load never committed): ` +
              `loaded with the file's modification time as its fetch time`,
          );
        }
        try {
          const load = () =>
            warehouse.transaction(async () => {
              const { record } = file;
              const landed = {
                path: file.path,
                runId: record.runId,
                endpoint: record.endpoint,
                fetchedAt: new Date(record.fetchedAt),
                bytes: statSync(file.path).size,
                ...(record.window && { window: record.window }),
              };
              const loaded = await loadLandedSales(warehouse, config, landed);
              if (record.window) await recordCompletedWindowAt(warehouse, file, loaded);
              return loaded;
            });
          // A file landed before lone surrogates were made text (issue 34) is refused whole by DuckDB: made text
          // in place, once, then loaded (its records with one are quarantined).
          const counts = await load().catch(async (error: unknown) => {
            if (!/surrogate/i.test((error as Error).message)) throw error;
            const guarded = await guardGzipFile(file.path);
            if (guarded === 0) throw error;
            output.warn(`${file.path} held ${guarded} lone surrogate escapes: made text in place before loading`);
            return load();
          });
          summary.files.loaded++;
          summary.records += counts.records;
          summary.loaded += counts.loaded;
          summary.quarantined += counts.quarantined;
          summary.newSales += counts.newSales;
          summary.statusChanges += counts.statusChanges;
        } catch (error) {
          summary.files.failed.push(file.path);
          output.warn(
            `${file.path} could not be loaded and was skipped (it stays on disk): ${(error as Error).message}`,
          );
        }
        output.progress(
          { label: 'landed files', done: index + 1, total: todo.length, facts: { rows: summary.loaded } },
          index + 1 === todo.length,
        );
      }
      output.clearProgress();
      run.counters.rowsLoaded = summary.loaded;
      run.details = { ...summary };
      return summary;
    },
    options.parentRunId,
  );
}

/** The window's checkpoint, as the original run committed it (without a record of its time: the fetch time). */
async function recordCompletedWindowAt(
  warehouse: Warehouse,
  file: LandedFile,
  counts: Awaited<ReturnType<typeof loadLandedSales>>,
): Promise<void> {
  const { window, runId, fetchedAt, completedAtUtc } = file.record;
  await recordCompletedWindow(warehouse, window!, runId, counts, file.path, new Date(fetchedAt));
  const completedAt = completedAtUtc ? `timezone('UTC', $1::TIMESTAMP)` : '$1::TIMESTAMPTZ';
  await warehouse.run(
    `UPDATE extract_windows SET completed_at = ${completedAt} WHERE window_start = $2::DATE AND window_end = ` +
      `$3::DATE AND by_flag = $4`,
    [completedAtUtc ?? fetchedAt, window!.start, window!.end, window!.flag],
  );
}

/** Whether a landed file belongs to the range: a window that overlaps it, or a lookup of a month it touches. */
function overlaps(file: LandedFile, options: RebuildOptions): boolean {
  if (!options.from || !options.to) return true;
  const window = file.record.window;
  if (window) return window.start <= options.to && window.end >= options.from;
  // by-transaction_: the sales `actions execute` read (issue 15), named by their action's period too.
  const month = /by-(?:reference|transaction)_(\d{4}-\d{2})_/.exec(file.path)?.[1];
  return month !== undefined && month >= options.from.slice(0, 7) && month <= options.to.slice(0, 7);
}
