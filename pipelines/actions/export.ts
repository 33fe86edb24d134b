/**
 * `actions export --kind claim|undercharge|journal`: the approved claims where the provider charged more than
 * agreed (a claim), those where it charged less (apart, issue 30), or the approved journal entries (fix_ledger,
 * write_off), as xlsx or csv (laid out by export-files.ts, written by reports/action-files.ts). What was approved
 * moves to `executed`; a repeat writes only lines not exported before unless --all; an approved action whose
 * finding was decided again since it was planned is canceled, never a line (issue 28). Totals: DuckDB DECIMAL.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../../config/schema.js';
import { UsageError } from '../../core/errors.js';
import type { Warehouse } from '../../core/warehouse.js';
import { writeActionFile } from '../../reports/action-files.js';
import { recordRun } from '../../core/run-trace.js';
import { actionsOf, changeStatus, checkPeriod } from './store.js';
import { cancelIfUnbound } from './binding.js';
import { exportFileName, nextExportSequence, prepareExport, type ExportKind } from './export-files.js';

export type { ExportKind } from './export-files.js';
export { accountsFor } from './journal-lines.js';
export type ExportFileFormat = 'xlsx' | 'csv';

export interface ActionExportSummary {
  runId: string;
  period: string;
  kind: ExportKind;
  /** The file written, or null when no line was left to write (all exported before, and no --all). */
  file: string | null;
  exportId: string | null;
  /** Lines an earlier export wrote: left out, or with --all written again and marked. */
  exportedBefore: number;
  /** Actions with nothing to post or claim (amount 0): taken off the approved list without a line. */
  nothingToPost: string[];
  /** Claims, or journal entries (each of two lines or more). */
  entries: number;
  lines: number;
  totals: Record<string, string | null>[];
  /** Actions of this kind still proposed: not exported until approved. */
  unapproved: number;
  /** Approved actions that this export moved to executed. */
  markedExecuted: number;
  /** Approved actions canceled instead: their finding's decision changed since they were planned (issue 28). */
  canceled: { actionId: string; reason: string }[];
}

export async function exportActions(
  warehouse: Warehouse,
  config: Config,
  options: { period: string; kind: ExportKind; format?: ExportFileFormat; out?: string; by: string; all?: boolean },
): Promise<ActionExportSummary> {
  const period = checkPeriod(options.period);
  const format = options.format ?? (options.out?.toLowerCase().endsWith('.csv') ? 'csv' : 'xlsx');
  if (!['xlsx', 'csv'].includes(format)) throw new UsageError(`--format must be xlsx or csv, got "${format}".`);
  const sequence = await nextExportSequence(warehouse, period, options.kind);
  const file = options.out ?? path.join(config.reports.outDir, exportFileName(period, options.kind, sequence, format));
  return recordRun(warehouse, 'actions export', { period, kind: options.kind, format, file }, async (run) => {
    const kindName = options.kind === 'journal' ? 'journal' : 'claim';
    mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
    // Issue 28: one transaction cancels the approved actions whose finding was decided again since they were
    // planned, reads what is left, writes the file and marks it exported — a canceled action is never a line.
    const { prepared, approved, canceled } = await warehouse.transaction(async () => {
      const ready: string[] = [];
      const canceled: { actionId: string; reason: string }[] = [];
      for (const action of await actionsOf(warehouse, period, `kind = $2 AND status = 'approved'`, [kindName])) {
        const reason = await cancelIfUnbound(warehouse, action, options.by);
        if (reason === null) ready.push(action.action_id);
        else canceled.push({ actionId: action.action_id, reason });
      }
      const all = options.all === true;
      const runId = run.runId;
      const prepared = await prepareExport(warehouse, config, {
        period,
        kind: options.kind,
        all,
        file,
        runId,
        by: options.by,
      });
      // A claim export covers the overcharges only, an undercharge export the rest (issue 30).
      const covered = new Set(prepared.actions);
      const approved = ready.filter((id) => covered.has(id));
      if (prepared.content.rows.length > 0) await writeActionFile(file, format, prepared.content);
      for (const actionId of approved) {
        const fields = { executed_at: new Date().toISOString() };
        await changeStatus(warehouse, actionId, 'approved', 'executed', options.by, `exported to ${file}`, fields);
      }
      return { prepared, approved, canceled };
    });
    const content = prepared.content;
    const written = content.rows.length > 0;
    const unapproved = (await warehouse.one<{ n: number }>(
      `SELECT count(*)::INTEGER AS n FROM recon_actions WHERE period = $1 AND kind = $2 AND status = 'proposed'`,
      [period, kindName],
    ))!.n;
    const entries = new Set(content.rows.map((r) => r.entry_id ?? r.action_id)).size;
    run.counters.rowsLoaded = content.rows.length;
    run.details = {
      file: written ? file : null,
      entries,
      lines: content.rows.length,
      unapproved,
      canceled: canceled.length,
    };
    return {
      runId: run.runId,
      period,
      kind: options.kind,
      file: written ? file : null,
      exportId: written ? prepared.exportId : null,
      exportedBefore: prepared.exportedBefore,
      nothingToPost: prepared.empty,
      entries,
      lines: content.rows.length,
      totals: content.totals.rows,
      unapproved,
      markedExecuted: approved.length,
      canceled,
    };
  });
}
