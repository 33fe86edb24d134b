/** The facts of the report's sources: the ledger side (orders and rejected lines) and the extract windows and runs. */
import { periodEnd, periodStart } from '../core/calendar.js';
import { sqlText } from '../core/paths.js';
import { ledgerRejectsOfPeriodSql, unplacedLedgerRejectSql } from '../core/period-sql.js';
import type { Warehouse } from '../core/warehouse.js';
import { nullableText as text } from './formats.js';

export interface ExtractWindow {
  windowStart: string;
  windowEnd: string;
  by: string;
  completedAt: string;
  records: string;
  quarantined: string;
  runId: string;
}

export interface ExtractRun {
  runId: string;
  command: string;
  startedAt: string;
  finishedAt: string | null;
  status: string;
  requests: string;
  retries: string;
  rateLimited: string;
  rowsLoaded: string;
}

/** The ledger side at a glance: how many orders were reconciled and how many lines were rejected. */
export interface LedgerFacts {
  /** Ledger orders the reconciliation counted in the period, all currencies. */
  orders: number;
  /** Rejected ledger lines the report lists (core/period-sql.ts, ledgerRejectsOfPeriodSql). */
  rejects: number;
  /** The files they come from. */
  rejectFiles: number;
  /** Of the rejects, those from files with no accepted line at all (a broken import). */
  unplacedRejects: number;
  unplacedFiles: number;
}

export interface Extraction {
  windows: ExtractWindow[];
  runs: ExtractRun[];
  lastFetchAt: string | null;
}

/** The ledger orders reconciled (counted from the totals) and the rejected lines the report lists. */
export async function loadLedgerFacts(
  warehouse: Warehouse,
  period: string,
  timezone: string,
  orders: number,
): Promise<LedgerFacts> {
  // Built from the rejects sheet's own conditions (report-sheets.ts), so the count and the sheet agree.
  const rejects = await warehouse.one<{ lines: string; files: string; unplaced_lines: string; unplaced_files: string }>(
    `SELECT count(*) AS lines, count(DISTINCT file_hash) AS files,
            count(*) FILTER (WHERE ${unplacedLedgerRejectSql}) AS unplaced_lines,
            count(DISTINCT file_hash) FILTER (WHERE ${unplacedLedgerRejectSql}) AS unplaced_files
     FROM ledger_rejects WHERE ${ledgerRejectsOfPeriodSql(period, timezone)}`,
  );
  return {
    orders,
    rejects: Number(rejects?.lines ?? 0),
    rejectFiles: Number(rejects?.files ?? 0),
    unplacedRejects: Number(rejects?.unplaced_lines ?? 0),
    unplacedFiles: Number(rejects?.unplaced_files ?? 0),
  };
}

/** The extract windows overlapping the period, the runs that completed them, and the last fetch. */
export async function loadExtraction(warehouse: Warehouse, period: string, timezone: string): Promise<Extraction> {
  const overlap = { period_start: periodStart(period), period_end: periodEnd(period), timezone };
  const windows = await warehouse.all(sqlText('report', 'extract_windows.sql'), overlap);
  const runs = await warehouse.all(sqlText('report', 'extract_runs.sql'), overlap);
  const lastFetch = await warehouse.one<{ at: string | null }>(sqlText('report', 'last_fetch.sql'), overlap);
  return {
    windows: windows.map((row) => ({
      windowStart: String(row.window_start),
      windowEnd: String(row.window_end),
      by: String(row.by_flag),
      completedAt: String(row.completed_at),
      records: String(row.records),
      quarantined: String(row.quarantined),
      runId: String(row.run_id),
    })),
    runs: runs.map((row) => ({
      runId: String(row.run_id),
      command: String(row.command),
      startedAt: String(row.started_at),
      finishedAt: text(row.finished_at),
      status: String(row.status),
      requests: String(row.requests),
      retries: String(row.retries),
      rateLimited: String(row.rate_limited),
      rowsLoaded: String(row.rows_loaded),
    })),
    lastFetchAt: lastFetch?.at ?? null,
  };
}
