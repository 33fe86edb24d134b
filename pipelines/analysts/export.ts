/**
 * `export`: writes a reconciled period's marts and the tables beside them (decisions, actions and their events,
 * roll-forward, suggested matches, carried forward: issue 31), one file each, with DuckDB's `COPY … TO` (Parquet
 * or CSV) or as Arrow IPC (arrow.ts); flat (`<mart>-<period>.<ext>`) or Hive-partitioned
 * (`<mart>/period=<period>/part-0.<ext>`, so lake engines read every month as one table). Each file is written under
 * a temporary name and renamed. A PIN never leaves whole: the masking rules of `pinrecon query`.
 */
import { chmodSync, chownSync, closeSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { JobError } from '../../core/errors.js';
import { createExclusive, type FileAccess, setAccess, temporaryFor } from '../../core/file-modes.js';
import { analystsAccess } from '../keys/private-files.js';
import type { Config } from '../../config/schema.js';
import type { Output } from '../../core/output.js';
import { arrowResult, writeArrowFile } from './arrow.js';
import { recordRun } from '../../core/run-trace.js';
import type { Warehouse } from '../../core/warehouse.js';
import { sqlIdentifier, sqlString } from '../../core/sql.js';
import { hasStoredPins, isPinColumn, maskPinSql, maskPinValue, pinValuesCte } from '../../core/masking.js';
import { neutralizeFormulaSql } from '../../core/text-safety.js';

/**
 * What goes out, in this order: the four marts reconcile must have built, who decided what (with its hash chain),
 * what was done about it (actions and every change of their status), the roll-forward, and the suggested matches
 * and carried-forward findings where the database has those tables (issue 31).
 */
export const exportedMarts = [
  'recon_exceptions',
  'recon_summary',
  'recon_bridge',
  'recon_aging',
  'recon_decisions',
  'recon_actions',
  'recon_action_events',
  'recon_roll_forward',
  'recon_match_suggestions',
  'recon_carried_forward',
] as const;
/** The marts reconcile builds: their absence means the period was never reconciled here. */
const requiredMarts = new Set<string>(['recon_exceptions', 'recon_summary', 'recon_bridge', 'recon_aging']);
export type ExportFormat = 'parquet' | 'csv' | 'arrow';
/** `flat`: one file per mart and period side by side; `hive`: `<mart>/period=YYYY-MM/part-0.<ext>`. */
export type ExportLayout = 'flat' | 'hive';

/** The period's rows of a table: by its own period column, or (action events) by their action's. */
function periodFilter(mart: string, period: string): string {
  if (mart === 'recon_action_events') {
    return `action_id IN (SELECT action_id FROM recon_actions WHERE period = ${sqlString(period)})`;
  }
  return `period = ${sqlString(period)}`;
}

/** Where a mart's file goes in the chosen layout. */
export function exportTarget(outDir: string, mart: string, period: string, format: ExportFormat, layout: ExportLayout) {
  return layout === 'hive'
    ? path.join(outDir, mart, `period=${period}`, `part-0.${format}`)
    : path.join(outDir, `${mart}-${period}.${format}`);
}

export interface ExportOptions {
  /** YYYY-MM */
  period: string;
  format: ExportFormat;
  /** Directory the files go to (created if needed). */
  outDir: string;
  /** Default `flat`. */
  layout?: ExportLayout;
  parentRunId?: string;
}

export interface ExportSummary {
  period: string;
  format: ExportFormat;
  layout: ExportLayout;
  files: { mart: string; path: string; rows: number }[];
}

export async function exportPeriod(
  warehouse: Warehouse,
  config: Config,
  options: ExportOptions,
  output: Output,
): Promise<ExportSummary> {
  const work = async (): Promise<ExportSummary> => {
    await assertReconciled(warehouse, options.period);
    const layout = options.layout ?? 'flat';
    mkdirSync(options.outDir, { recursive: true });
    const access = analystsAccess(config);
    const files: ExportSummary['files'] = [];
    const byValue = await hasStoredPins(warehouse);
    for (const mart of exportedMarts) {
      const columns = await warehouse.all<{ column_name: string; data_type: string }>(
        `SELECT column_name, data_type FROM duckdb_columns()
         WHERE table_name = $1 AND schema_name = 'main' AND NOT internal ORDER BY column_index`,
        [mart],
      );
      // A table a newer pinrecon adds (suggestions, carried forward) is left out of an older database.
      if (columns.length === 0 && !requiredMarts.has(mart) && mart !== 'recon_decisions') continue;
      if (columns.length === 0) {
        throw new JobError(
          `The mart ${mart} does not exist in ${warehouse.path}.`,
          `Run pinrecon reconcile --period ${options.period} first.`,
        );
      }
      // In the Hive layout the period is the folder (period=YYYY-MM), not a column of the file: readers add it back.
      const stored = layout === 'hive' ? columns.filter(({ column_name: name }) => name !== 'period') : columns;
      const maskedList = stored.map(({ column_name: name, data_type: type }) => {
        const quoted = sqlIdentifier(name);
        if (isPinColumn(name)) return `${maskPinSql(`CAST(${quoted} AS VARCHAR)`)} AS ${quoted}`;
        return byValue && type === 'VARCHAR' ? `${maskPinValue(quoted)} AS ${quoted}` : quoted;
      });
      // A CSV opened in a spreadsheet must not run a cell as a formula. The guard reads the masked value by name: it
      // names its value four times, and the masking expression written in each place made a CSV export ~10x slower.
      const selectList = stored.map(({ column_name: name, data_type: type }) => {
        const quoted = sqlIdentifier(name);
        const guarded = options.format === 'csv' && type === 'VARCHAR' && !isPinColumn(name);
        return guarded ? `${neutralizeFormulaSql(quoted)} AS ${quoted}` : quoted;
      });
      const pins = byValue ? `WITH ${pinValuesCte} ` : '';
      const target = exportTarget(options.outDir, mart, options.period, options.format, layout);
      if (layout === 'hive') shareFolders(options.outDir, target, access);
      // Issue 34: the temporary is created exclusively (a link planted at its name is removed, not followed);
      // issue 31: the file gets the access analysts.group asks for before it is renamed into place.
      const temporary = temporaryFor(target);
      closeSync(createExclusive(temporary, access));
      const copyOptions = options.format === 'parquet' ? '(FORMAT parquet)' : '(FORMAT csv, HEADER true)';
      // The period is a validated YYYY-MM; COPY takes no parameters.
      const rows = periodFilter(mart, options.period);
      const masked = `SELECT ${maskedList.join(', ')} FROM ${mart} WHERE ${rows}`;
      const query = `${pins}SELECT ${selectList.join(', ')} FROM (${masked}) ORDER BY ALL`;
      try {
        let rows: number;
        if (options.format === 'arrow') {
          rows = await writeArrowFile(
            arrowResult(await warehouse.connection.stream(query), config.timezone).batches,
            temporary,
          );
        } else {
          const [result] = await warehouse.all<{ Count: string }>(
            `COPY (${query}) TO ${sqlString(temporary)} ${copyOptions}`,
          );
          rows = Number(result?.Count ?? 0);
        }
        setAccess(temporary, access);
        renameSync(temporary, target);
        files.push({ mart, path: target, rows });
      } finally {
        rmSync(temporary, { force: true });
      }
      output.info(`wrote ${target}`);
    }
    return { period: options.period, format: options.format, layout, files };
  };
  // From the read-only snapshot (a job holds the database) there is no run to record.
  if (warehouse.readOnly) return work();
  return recordRun(
    warehouse,
    'export',
    { period: options.period, format: options.format, layout: options.layout ?? 'flat', outDir: options.outDir },
    async (run) => {
      const summary = await work();
      run.details = { files: summary.files.map((f) => ({ mart: f.mart, rows: f.rows })) };
      return summary;
    },
    options.parentRunId,
  );
}

/**
 * Creates the Hive folders between `outDir` and the file; shared with the analysts' group when the files are
 * (0750), else private like every folder pinrecon makes.
 */
function shareFolders(outDir: string, target: string, access: FileAccess): void {
  mkdirSync(path.dirname(target), { recursive: true });
  if (access.gid === undefined) return;
  for (
    let folder = path.dirname(target);
    folder !== outDir && folder.startsWith(outDir);
    folder = path.dirname(folder)
  ) {
    chownSync(folder, -1, access.gid);
    chmodSync(folder, 0o750);
  }
}

/** The period must have been reconciled: `recon_runs` holds a row for it. */
async function assertReconciled(warehouse: Warehouse, period: string): Promise<void> {
  const table = await warehouse.one(
    `SELECT 1 AS present FROM duckdb_tables() WHERE table_name = 'recon_runs' AND schema_name = 'main'`,
  );
  const reconciled = table
    ? await warehouse.one(`SELECT 1 AS present FROM recon_runs WHERE period = $1 LIMIT 1`, [period])
    : undefined;
  if (!reconciled) {
    throw new JobError(
      `The period ${period} has not been reconciled in ${warehouse.path}: there is nothing to export.`,
      `Run pinrecon reconcile --period ${period} (or pinrecon run --period ${period}) first.`,
    );
  }
}
