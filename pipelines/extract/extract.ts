/**
 * `extract`: pulls the provider's sales for a date range, window by window, under the shared rate limit.
 * Each window's response is landed as received (gzip), then loaded by DuckDB while the next one downloads (one
 * ahead at most, download-ahead.ts), and the window's rows, quarantine, landing record and checkpoint commit in
 * one transaction, so a run killed at any moment and started again finishes only the missing windows and ends
 * with exactly the clean result.
 */
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { ConfigError, JobError, outOfMemoryHint, UsageError } from '../../core/errors.js';
import type { Config } from '../../config/schema.js';
import type { Output } from '../../core/output.js';
import { PartnerApiClient, ProviderError } from '../../sources/partner-api/client.js';
import { todayIn } from '../../core/calendar.js';
import { recordRun } from '../../core/run-trace.js';
import type { Warehouse } from '../../core/warehouse.js';
import { keyMaskingThreadStream } from '../../core/key-masker-thread.js';
import { removeDeadTemporaries } from '../../core/file-modes.js';
import type { KeyProtection } from '../../core/key-protection.js';
import { keyProtectionFor } from './key-mode.js';
import { completedWindows, recordCompletedWindow } from './checkpoint.js';
import { downloadAhead } from './download-ahead.js';
import { landingRoot, salesLandingPath, writeLandingRecord } from './landing.js';
import { loadLandedSales, type LoadCounts } from './load.js';
import { markWindows, planWindows, type PlannedWindow, type SearchBy } from './plan.js';

export interface ExtractOptions {
  /** First day, YYYY-MM-DD, inclusive (configured time zone). */
  from: string;
  /** Last day, YYYY-MM-DD, inclusive. */
  to: string;
  /** Which search of the sales list: by payment date, by creation date, or both (default). */
  by: SearchBy;
  /** Plan only: print windows, requests and time, call nothing, write nothing. */
  dryRun?: boolean;
  /** Today in the configured zone (default: the real today); decides the lookback. */
  today?: string;
  /** A client to share (e.g. with the other steps of `run`); by default one is made and closed here. */
  client?: PartnerApiClient;
  parentRunId?: string;
  /** Days before today always fetched again (default extract.lookbackDays; the back-fill uses 0). */
  lookbackDays?: number;
  /** What the progress bar and plain progress lines call the windows (default "windows"). */
  progressLabel?: string;
}

export interface ExtractSummary {
  /** The pipeline_runs row; absent on a dry run. */
  runId?: string;
  from: string;
  to: string;
  by: SearchBy;
  dryRun: boolean;
  landingDir: string;
  /** Every window × flag, with what this run does (or would do) with it. */
  plan: PlannedWindow[];
  windows: { planned: number; fetched: number; skipped: number };
  /** Records received in all responses = loaded + notLoaded. */
  records: number;
  loaded: number;
  notLoaded: number;
  newSales: number;
  statusChanges: number;
  quarantined: number;
  duplicates: number;
  unparseableDates: number;
  /** HTTP attempts, token calls and retries included (on a dry run: the estimate). */
  requests: number;
  retries: number;
  rateLimited: number;
  elapsedSeconds: number;
  /** Of which waiting for and receiving responses, and loading them into DuckDB. */
  downloadSeconds: number;
  loadSeconds: number;
  /** Dry run: the plan's requests at `api.maxRequestsPerSecond`. */
  estimatedSeconds?: number;
}

export async function extractSales(
  warehouse: Warehouse,
  config: Config,
  options: ExtractOptions,
  output: Output,
): Promise<ExtractSummary> {
  const started = Date.now();
  checkOptions(options);
  const today = options.today ?? todayIn(config.timezone);
  const windows = planWindows(options.from, options.to, options.by, config.extract.maxWindowDays);
  const lookbackDays = options.lookbackDays ?? config.extract.lookbackDays;
  const plan = markWindows(windows, await completedWindows(warehouse, config.timezone), today, lookbackDays);
  const toFetch = plan.filter((w) => w.action !== 'skip');
  const summary = emptySummary(options, plan, toFetch.length, landingRoot(config));
  if (options.dryRun) {
    // One sales list per window, plus the token call.
    summary.requests = toFetch.length > 0 ? toFetch.length + 1 : 0;
    summary.estimatedSeconds = summary.requests / config.api.maxRequestsPerSecond;
    return summary;
  }

  const args = { from: options.from, to: options.to, by: options.by, today };
  return recordRun(
    warehouse,
    'extract',
    args,
    async (run) => {
      summary.runId = run.runId;
      // Before anything that must be stopped: a refused key mode fails the run with nothing left running.
      const keys = await keyProtectionFor(warehouse, config);
      const client = options.client ?? new PartnerApiClient(config.api);
      const statsBefore = { ...client.stats };
      const clientDelta = () => ({
        requests: client.stats.requests - statsBefore.requests,
        retries: client.stats.retries - statsBefore.retries,
        rateLimited: client.stats.rateLimited - statsBefore.rateLimited,
      });
      const showProgress = (force = false) => {
        const seconds = (Date.now() - started) / 1000;
        const delta = clientDelta();
        const done = summary.windows.fetched;
        output.progress(
          {
            label: options.progressLabel ?? 'windows',
            done,
            total: toFetch.length,
            facts: {
              rows: summary.loaded,
              'req/s': (delta.requests / Math.max(seconds, 0.001)).toFixed(1),
              '503s': delta.rateLimited,
            },
            ...(done > 0 ? { etaSeconds: (seconds / done) * (toFetch.length - done) } : {}),
          },
          force,
        );
      };
      // The job's memory limit, unless the windows should have their own (extract.memoryLimit).
      const jobMemoryLimit = warehouse.memoryLimitSetting() ?? (await warehouse.memoryLimit());
      if (config.extract.memoryLimit) await warehouse.useMemoryLimit(config.extract.memoryLimit);
      // Keeps the bar's rates alive while a large window downloads or loads (off a terminal, the output
      // turns these into a plain line every ~10 s).
      const ticker = setInterval(() => showProgress(), 500);
      try {
        if (summary.windows.skipped > 0) {
          output.info(`${summary.windows.skipped} of ${plan.length} windows already extracted; skipping them`);
        }
        // The next window downloads while this one loads, never more than one ahead (download-ahead.ts).
        // Loads and checkpoints stay in window order; a download never commits anything.
        await downloadAhead(
          toFetch,
          (window) => downloadWindow(client, window, run.runId, summary.landingDir, keys),
          async (window, downloaded) => {
            addWindow(summary, await loadWindow(warehouse, config, window, run.runId, downloaded, output));
            // A finished window is always drawn (the throttle would otherwise swallow the last one).
            if (output.isTerminal) showProgress(true);
          },
          { discard: removeUncompressedCopy },
        );
      } finally {
        if (config.extract.memoryLimit) await warehouse.useMemoryLimit(jobMemoryLimit).catch(() => undefined);
        clearInterval(ticker);
        output.clearProgress();
        Object.assign(summary, clientDelta());
        if (!options.client) client.close();
      }
      summary.elapsedSeconds = (Date.now() - started) / 1000;
      run.counters = {
        requests: summary.requests,
        retries: summary.retries,
        rateLimited: summary.rateLimited,
        rowsLoaded: summary.loaded,
      };
      const { plan: _plan, ...details } = summary;
      run.details = details;
      return summary;
    },
    options.parentRunId,
  );
}

/** The summary before any window is fetched: the plan, and every count at zero. */
function emptySummary(
  options: ExtractOptions,
  plan: ExtractSummary['plan'],
  toFetch: number,
  landingDir: string,
): ExtractSummary {
  return {
    from: options.from,
    to: options.to,
    by: options.by,
    dryRun: Boolean(options.dryRun),
    landingDir,
    plan,
    windows: { planned: plan.length, fetched: 0, skipped: plan.length - toFetch },
    records: 0,
    loaded: 0,
    notLoaded: 0,
    newSales: 0,
    statusChanges: 0,
    quarantined: 0,
    duplicates: 0,
    unparseableDates: 0,
    requests: 0,
    retries: 0,
    rateLimited: 0,
    elapsedSeconds: 0,
    downloadSeconds: 0,
    loadSeconds: 0,
  };
}

/** Adds one fetched window's counts to the summary. */
function addWindow(summary: ExtractSummary, counts: Awaited<ReturnType<typeof loadWindow>>): void {
  summary.windows.fetched++;
  summary.records += counts.records;
  summary.loaded += counts.loaded;
  summary.notLoaded += counts.notLoaded;
  summary.newSales += counts.newSales;
  summary.statusChanges += counts.statusChanges;
  summary.quarantined += counts.quarantined;
  summary.duplicates += counts.duplicates;
  summary.unparseableDates += counts.unparseableDates;
  summary.downloadSeconds += counts.downloadSeconds;
  summary.loadSeconds += counts.loadSeconds;
}

/** A window's answer, landed (gzip, PINs masked) and not yet loaded. */
interface DownloadedWindow {
  file: string;
  download: Awaited<ReturnType<PartnerApiClient['downloadSalesByPeriod']>>;
  seconds: number;
}

/** Downloads one window into the landing directory. */
async function downloadWindow(
  client: PartnerApiClient,
  window: PlannedWindow,
  runId: string,
  root: string,
  keys: KeyProtection,
): Promise<DownloadedWindow> {
  const started = Date.now();
  const file = salesLandingPath(root, window, runId);
  mkdirSync(path.dirname(file), { recursive: true });
  // What a killed run's downloads left here: their gzip files and uncompressed copies (`….json[.gz].tmp-<pid>`).
  removeDeadTemporaries(path.dirname(file), (name) => name.endsWith('.json') || name.endsWith('.json.gz'));
  try {
    // In hash and drop mode the PINs are masked before the response's bytes are written, on the worker thread.
    const rewrite = keys.mode === 'store' ? undefined : () => keyMaskingThreadStream(keys);
    const target = { filePath: file, ...(rewrite && { rewrite }), uncompressedCopy: true };
    const download = await client.downloadSalesByPeriod(window.start, window.end, window.flag === 'created', target);
    return { file, download, seconds: (Date.now() - started) / 1000 };
  } catch (error) {
    throw explainDownloadFailure(error, `${window.start}..${window.end} (by ${window.flag})`);
  }
}

/** Loads a downloaded window and checkpoints it in one transaction. */
async function loadWindow(
  warehouse: Warehouse,
  config: Config,
  window: PlannedWindow,
  runId: string,
  downloaded: DownloadedWindow,
  output: Output,
): Promise<LoadCounts & { downloadSeconds: number; loadSeconds: number }> {
  const { file, download, seconds: downloadSeconds } = downloaded;
  const started = Date.now();
  const where = `${window.start}..${window.end} (by ${window.flag})`;
  let counts: LoadCounts;
  try {
    counts = await warehouse.transaction(async () => {
      const landed = {
        path: file,
        runId,
        endpoint: 'salesByPeriod',
        fetchedAt: download.fetchedAt,
        bytes: download.fileBytes,
        window,
        records: download.records,
        ...(download.uncompressedCopy && { uncompressedCopy: download.uncompressedCopy }),
      };
      const loaded = await loadLandedSales(warehouse, config, landed);
      // The client counted the array's elements as they streamed in; DuckDB must have read as many.
      if (loaded.records !== download.records) {
        throw new Error(
          `the client received ${download.records} records but DuckDB read ${loaded.records} from the file`,
        );
      }
      await recordCompletedWindow(warehouse, window, runId, loaded, file, download.fetchedAt);
      return loaded;
    });
  } catch (error) {
    throw new JobError(
      `Loading the sales of window ${where} from ${file} failed: ${(error as Error).message}`,
      outOfMemoryHint(error) ??
        'The response is kept at that path for inspection (it should be a JSON array of sales records). Re-run the ' +
          'same command: completed windows are kept and this one is fetched again.',
      { cause: error },
    );
  } finally {
    removeUncompressedCopy(downloaded);
  }
  // Committed: say so beside the file, so `extract --from-landing` can rebuild exactly this.
  const checkpoint = await warehouse.one<{ at: string }>(
    `SELECT strftime(completed_at AT TIME ZONE 'UTC', '%Y-%m-%d %H:%M:%S.%f') AS at FROM extract_windows WHERE ` +
      `window_start = $1::DATE AND window_end = $2::DATE AND by_flag = $3`,
    [window.start, window.end, window.flag],
  );
  writeLandingRecord(file, {
    endpoint: 'salesByPeriod',
    runId,
    fetchedAt: download.fetchedAt.toISOString(),
    window: { start: window.start, end: window.end, flag: window.flag },
    ...(checkpoint && { completedAtUtc: checkpoint.at }),
  });
  const loadSeconds = (Date.now() - started) / 1000;
  if (!output.isTerminal) {
    output.info(
      `window ${where}: ${counts.records} records, ${counts.loaded} loaded, ${counts.quarantined} quarantined; ` +
        `${downloadSeconds.toFixed(1)} s download, ${loadSeconds.toFixed(1)} s load`,
    );
  }
  if (counts.duplicates > 0) {
    output.warn(
      `window ${where}: ${counts.duplicates} records repeated a transactionId of the same response; the last ` +
        `occurrence of each was loaded, the others are in sales_quarantine`,
    );
  }
  if (counts.unparseableDates > 0) {
    output.warn(
      `window ${where}: ${counts.unparseableDates} records have a transactionDate that could not be read; loaded ` +
        `with transaction_at NULL and listed in sales_quarantine`,
    );
  }
  return { ...counts, downloadSeconds, loadSeconds };
}

/** The window's uncompressed copy, once its load is over (or will not come): the gzip file stays. */
function removeUncompressedCopy({ download }: DownloadedWindow): void {
  if (download.uncompressedCopy) rmSync(download.uncompressedCopy, { force: true });
}

function explainDownloadFailure(error: unknown, where: string): unknown {
  if (error instanceof ConfigError || !(error instanceof Error)) return error;
  const resume = 'Windows completed so far are saved: re-run the same command to continue.';
  if (error instanceof ProviderError) {
    // Only a refusal of the token call is about credentials; an unreachable one is about the address.
    const auth =
      (error.endpoint === 'getToken' || error.endpoint === 'refreshToken') &&
      error.status !== undefined &&
      error.status < 500;
    const hint = auth
      ? 'Check api.identifier and api.secret (or PINRECON_API_IDENTIFIER / PINRECON_API_SECRET): ' +
        'test and production credentials differ.'
      : `${error.hint ?? 'Check api.baseUrl and that the provider is reachable.'} ${resume}`;
    return new JobError(`Extracting sales window ${where} failed at ${error.endpoint}: ${error.message}`, hint, {
      cause: error,
    });
  }
  return new JobError(`Extracting sales window ${where} failed: ${error.message}`, resume, { cause: error });
}

function checkOptions(options: ExtractOptions): void {
  for (const [name, value] of [
    ['--from', options.from],
    ['--to', options.to],
  ] as const) {
    const time = Date.parse(`${value}T00:00:00Z`);
    if (
      !/^\d{4}-\d{2}-\d{2}$/.test(value) ||
      Number.isNaN(time) ||
      new Date(time).toISOString().slice(0, 10) !== value
    ) {
      throw new UsageError(`${name} must be a date written YYYY-MM-DD, got "${value}".`);
    }
  }
  if (options.from > options.to) throw new UsageError(`--from (${options.from}) is after --to (${options.to}).`);
  if (!['paid', 'created', 'both'].includes(options.by))
    throw new UsageError(`--by must be paid, created or both, got "${options.by}".`);
}
