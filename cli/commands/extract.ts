/** `pinrecon extract`: pulls the provider's sales for a date range into the database (resumable). */
import type { Command } from 'commander';
import { UsageError } from '../../core/errors.js';
import type { Config } from '../../config/schema.js';
import { extractSales, type ExtractSummary } from '../../pipelines/extract/extract.js';
import { rebuildFromLanding, type RebuildSummary } from '../../pipelines/extract/rebuild.js';
import { backfillCreatedWindows } from '../../pipelines/extract/backfill.js';
import type { SearchBy } from '../../pipelines/extract/plan.js';
import { databaseExists, publishSnapshot, withWarehouse } from '../../core/warehouse.js';
import { analystsAccess } from '../../pipelines/keys/private-files.js';
import { action, withGlobalOptions, type GlobalOptions } from '../context.js';
import { parseChoice, parseDateOption } from '../options.js';
import { formatDuration, formatTable, type Output } from '../../core/output.js';
import { warehouseSettings } from '../../config/warehouse-settings.js';

export interface ExtractCommandOptions extends GlobalOptions {
  from?: string;
  to?: string;
  by: string;
  dryRun?: boolean;
  fromLanding?: boolean;
}

/** From the provider's API, or (--from-landing) from the archived responses, all or those of a range. */
export type ExtractRequest =
  | { fromLanding: false; from: string; to: string; by: SearchBy; dryRun: boolean }
  | { fromLanding: true; range: { from?: string; to?: string } };

/** The command line of `extract`, checked (issue 27: pure, tested in-process). */
export function parseExtract(options: ExtractCommandOptions): ExtractRequest {
  if (options.fromLanding) {
    if (options.dryRun)
      throw new UsageError('--dry-run and --from-landing do not go together: --from-landing calls nothing anyway.');
    const range = {
      ...(options.from !== undefined && { from: parseDateOption(options.from, '--from')! }),
      ...(options.to !== undefined && { to: parseDateOption(options.to, '--to')! }),
    };
    return { fromLanding: true, range };
  }
  if (options.from === undefined || options.to === undefined)
    throw new UsageError(`--from and --to are required (YYYY-MM-DD), unless --from-landing.`);
  const from = parseDateOption(options.from, '--from')!;
  const to = parseDateOption(options.to, '--to')!;
  const by = parseChoice(options.by, ['paid', 'created', 'both'] as const, '--by', 'paid, created or both');
  if (from > to) throw new UsageError(`--from (${from}) is after --to (${to}).`);
  return { fromLanding: false, from, to, by, dryRun: Boolean(options.dryRun) };
}

export function registerExtract(program: Command): void {
  withGlobalOptions(
    program
      .command('extract')
      .description(
        'pull provider sales for a date range, in calendar windows of at most 31 days, under the rate limit; resumable',
      )
      .option(
        '--from <date>',
        'first day, YYYY-MM-DD (inclusive, configured time zone); required unless --from-landing',
      )
      .option('--to <date>', 'last day, YYYY-MM-DD (inclusive); required unless --from-landing')
      .option('--by <search>', 'search sales by payment date, creation date, or both: paid | created | both', 'both')
      .option('--dry-run', 'print the windows, the requests and the time it would take; call nothing, write nothing')
      .option(
        '--from-landing',
        'call nothing: rebuild sales, their status history and quarantine from the archived responses (all, or the ' +
          'windows of --from..--to) not yet in the database',
      ),
  )
    .addHelpText(
      'after',
      `
Windows never cross a month boundary. Windows already extracted are skipped, except those within
extract.lookbackDays of today (statuses still change there). A killed run continues where it stopped.
Raw responses are kept in extract.landingDir (default: landing/ beside the database).
With extract.historyStart set, the by-creation windows from it to the day before --from are back-filled
first (once: windows completed after their days ended are skipped), so the stored windows prove that a
paid order without a provider sale has none, without asking about it.

--from-landing loads every archived response the database does not hold yet, in the order it was
fetched: on a new (or deleted) database it rebuilds exactly what the original extraction loaded.

Example:
  pinrecon extract --from 2026-01-01 --to 2026-03-31 --by both
  pinrecon extract --from-landing`,
    )
    .action(
      action<ExtractCommandOptions, []>(async ({ config, output }, options) => {
        const parsed = parseExtract(options);
        if (parsed.fromLanding) return rebuild(config, parsed.range, output);
        const { fromLanding: _, ...request } = parsed;
        const { from } = request;
        // A dry run only reads the checkpoints: it never creates or locks the database for writing.
        const file = request.dryRun && !databaseExists(config.database) ? ':memory:' : config.database;
        const readOnly = request.dryRun && file !== ':memory:';
        const opening = warehouseSettings(config, { readOnly });
        const { backfill, summary } = await withWarehouse(file, opening, async (warehouse) => {
          // Published after a failed extract too (issue 31): analysts see the failed run and the windows it saved.
          const publish = () =>
            request.dryRun ? Promise.resolve('') : publishSnapshot(warehouse, analystsAccess(config));
          try {
            const backfill = await backfillCreatedWindows(
              warehouse,
              config,
              { until: from, dryRun: request.dryRun },
              output,
            );
            const result = await extractSales(warehouse, config, request, output);
            await publish();
            return { backfill, summary: result };
          } catch (error) {
            await publish().catch(() => undefined);
            throw error;
          }
        });
        if (backfill) {
          output.result(`back-fill from extract.historyStart ${config.extract.historyStart} (by creation date):`);
          if (request.dryRun) printPlan(backfill, config, output);
          else printSummary(backfill, output);
          output.result('');
        }
        if (request.dryRun) printPlan(summary, config, output);
        else printSummary(summary, output);
        output.document({ ok: true, ...summary, ...(backfill && { backfill }) });
      }),
    );
}

async function rebuild(config: Config, range: { from?: string; to?: string }, output: Output): Promise<void> {
  const summary = await withWarehouse(config.database, warehouseSettings(config), async (warehouse) => {
    const result = await rebuildFromLanding(warehouse, config, range, output);
    await publishSnapshot(warehouse, analystsAccess(config));
    return result;
  });
  printRebuild(summary, output);
  output.document({ ok: summary.files.failed.length === 0, ...summary });
  if (summary.files.failed.length > 0) process.exitCode = 1;
}

function printRebuild(s: RebuildSummary, output: Output): void {
  output.result(
    [
      `extract --from-landing: ${s.files.loaded} of ${s.files.found} landed responses loaded ` +
        `(${s.files.alreadyLoaded} already in the database, ${s.files.outOfRange} outside the range, ` +
        `${s.files.failed.length} failed)`,
      `records ${s.records} · sales loaded ${s.loaded} · new sales ${s.newSales} · ` +
        `status changes ${s.statusChanges} · quarantined ${s.quarantined}`,
      ...s.files.failed.map((file) => `failed: ${file}`),
      `run ${s.runId} · from ${s.landingDir} · nothing was asked of the API`,
    ].join('\n'),
  );
}

function printPlan(summary: ExtractSummary, config: Config, output: Output): void {
  const rows = summary.plan.map((w) => ({
    window: `${w.start}..${w.end}`,
    by: w.flag,
    action: w.action,
    why: w.reason,
  }));
  output.result(formatTable(rows));
  output.result(
    `\n${summary.windows.planned} windows: ${summary.windows.planned - summary.windows.skipped} to fetch, ` +
      `${summary.windows.skipped} already done and skipped.\n` +
      `${summary.requests} requests (one per window plus the token call) ` +
      `≈ ${seconds(summary.estimatedSeconds ?? 0)} ` +
      `at ${config.api.maxRequestsPerSecond} requests/s, ` +
      `plus download and load time of large windows.\nDry run: nothing was called or written.`,
  );
}

function printSummary(s: ExtractSummary, output: Output): void {
  output.result(
    [
      `extract ${s.from}..${s.to} by ${s.by}: ${s.windows.fetched} windows fetched, ${s.windows.skipped} skipped ` +
        `(already done)`,
      `records ${s.records} = ${s.loaded} loaded + ${s.notLoaded} not loaded · new sales ${s.newSales} · status ` +
        `changes ${s.statusChanges}`,
      `quarantined ${s.quarantined} (repeated transactionIds ${s.duplicates}, unreadable dates ` +
        `${s.unparseableDates})${s.quarantined > 0 ? ' — see the sales_quarantine table' : ''}`,
      `requests ${s.requests} · retries ${s.retries} · 503s ${s.rateLimited} · ` +
        `elapsed ${seconds(s.elapsedSeconds)} (download ${seconds(s.downloadSeconds)}, load ${seconds(s.loadSeconds)})`,
      `run ${s.runId} · raw responses in ${s.landingDir}`,
    ].join('\n'),
  );
}

/** Short spans with a decimal (a dry run of a few windows takes well under a second), long ones as 3m05s. */
function seconds(value: number): string {
  return value < 60 ? `${value.toFixed(1)}s` : formatDuration(value);
}
