/**
 * `export`: writes a reconciled period's marts (`recon_exceptions`, `recon_summary`, `recon_bridge`,
 * `recon_aging`) and `recon_decisions`, one file each, with DuckDB's `COPY … TO` (Parquet or CSV) or as Arrow IPC
 * (pipelines/analysts/arrow.ts); each file is written under a temporary name and renamed. A PIN never leaves whole: the
 * masking rules of `pinrecon query`.
 */
import { closeSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { JobError } from '../../core/errors.js';
import { createExclusive, setAccess, temporaryFor } from '../../core/file-modes.js';
import { analystsAccess } from '../keys/private-files.js';
import type { Config } from '../../config/schema.js';
import type { Output } from '../../core/output.js';
import { arrowResult, writeArrowFile } from './arrow.js';
import { recordRun } from '../../core/run-trace.js';
import type { Warehouse } from '../../core/warehouse.js';
import { sqlIdentifier, sqlString } from '../../core/sql.js';
import { hasStoredPins, isPinColumn, maskPinSql, maskPinValue, pinValuesCte } from '../../core/masking.js';
import { neutralizeFormulaSql } from '../../core/text-safety.js';

/** recon_decisions goes out too: who decided what, when and from where, with its hash chain. */
export const exportedMarts = [
  'recon_exceptions',
  'recon_summary',
  'recon_bridge',
  'recon_aging',
  'recon_decisions',
] as const;
export type ExportFormat = 'parquet' | 'csv' | 'arrow';

export interface ExportOptions {
  /** YYYY-MM */
  period: string;
  format: ExportFormat;
  /** Directory the files go to (created if needed). */
  outDir: string;
  parentRunId?: string;
}

export interface ExportSummary {
  period: string;
  format: ExportFormat;
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
    mkdirSync(options.outDir, { recursive: true });
    const access = analystsAccess(config);
    const files: ExportSummary['files'] = [];
    const byValue = await hasStoredPins(warehouse);
    for (const mart of exportedMarts) {
      const columns = await warehouse.all<{ column_name: string; data_type: string }>(
        `SELECT column_name, data_type FROM duckdb_columns() WHERE table_name = $1 AND schema_name = 'main' AND NOT internal ORDER BY column_index`,
        [mart],
      );
      if (columns.length === 0) {
        throw new JobError(
          `The mart ${mart} does not exist in ${warehouse.path}.`,
          `Run pinrecon reconcile --period ${options.period} first.`,
        );
      }
      const selectList = columns.map(({ column_name: name, data_type: type }) => {
        const quoted = sqlIdentifier(name);
        if (isPinColumn(name)) return `${maskPinSql(`CAST(${quoted} AS VARCHAR)`)} AS ${quoted}`;
        const text = byValue && type === 'VARCHAR' ? maskPinValue(quoted) : quoted;
        // A CSV opened in a spreadsheet must not run a cell as a formula.
        if (options.format === 'csv' && type === 'VARCHAR') return `${neutralizeFormulaSql(text)} AS ${quoted}`;
        return text === quoted ? quoted : `${text} AS ${quoted}`;
      });
      const pins = byValue ? `WITH ${pinValuesCte} ` : '';
      const target = path.join(options.outDir, `${mart}-${options.period}.${options.format}`);
      // Issue 34: the temporary is created exclusively (a link planted at its name is removed, not followed);
      // issue 31: the file gets the access analysts.group asks for before it is renamed into place.
      const temporary = temporaryFor(target);
      closeSync(createExclusive(temporary, access));
      const copyOptions = options.format === 'parquet' ? '(FORMAT parquet)' : '(FORMAT csv, HEADER true)';
      // The period is a validated YYYY-MM; COPY takes no parameters.
      const query = `${pins}SELECT ${selectList.join(', ')} FROM ${mart} WHERE period = ${sqlString(options.period)} ORDER BY ALL`;
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
    return { period: options.period, format: options.format, files };
  };
  // From the read-only snapshot (a job holds the database) there is no run to record.
  if (warehouse.readOnly) return work();
  return recordRun(
    warehouse,
    'export',
    { period: options.period, format: options.format, outDir: options.outDir },
    async (run) => {
      const summary = await work();
      run.details = { files: summary.files.map((f) => ({ mart: f.mart, rows: f.rows })) };
      return summary;
    },
    options.parentRunId,
  );
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
