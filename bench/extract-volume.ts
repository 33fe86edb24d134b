/**
 * Extract volume: one month of 1,000,000 sales (`--by paid`, 50 requests/s) downloaded from the simulator
 * and loaded into a fresh DuckDB file; then the same month re-fetched (as the lookback does), which merges a
 * million known sales. The simulator runs in a child process (`pinrecon simulate-api`), so the peak RSS the
 * harness records is the extractor's own. Reports rows/s and seconds per stage.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ConsoleOutput } from '../cli/output.js';
import { configSchema } from '../config/schema.js';
import { extractSales, type ExtractSummary } from '../pipelines/extract/extract.js';
import { withWarehouse } from '../core/warehouse.js';
import { peakRssMiB, timed, type BenchResult } from './harness.js';
import { startSimulatorProcess } from './simulator-process.js';

export const name = 'extract volume (1,000,000 sales in one month)';

const SALES = 1_000_000;
const RATE = 50;
const credentials = { identifier: 'bench-partner', secret: 'bench-secret-extract' };

export async function run(): Promise<BenchResult> {
  const dir = mkdtempSync(path.join(tmpdir(), 'pinrecon-bench-extract-'));
  const simulator = await startSimulatorProcess({
    dir,
    from: '2026-01-01',
    to: '2026-01-31',
    sales: SALES,
    rateLimit: RATE,
    ...credentials,
  });
  try {
    const config = configSchema.parse({
      database: path.join(dir, 'pinrecon.duckdb'),
      timezone: 'America/Sao_Paulo',
      api: { baseUrl: simulator.url, ...credentials, maxRequestsPerSecond: RATE },
    });
    const output = new ConsoleOutput(true);
    const extract = (today: string) =>
      withWarehouse(config.database, { timezone: config.timezone }, (warehouse) =>
        extractSales(warehouse, config, { from: '2026-01-01', to: '2026-01-31', by: 'paid', today }, output),
      );
    const first = await timed(() => extract('2026-12-31'));
    const rssAfterFirst = peakRssMiB();
    // Within the lookback: the same million sales again, now all known (the merge path).
    const again = await timed(() => extract('2026-02-15'));
    const s: ExtractSummary = first.value;
    const peak = peakRssMiB();
    return {
      metrics: {
        sales_loaded: s.loaded,
        records_received: s.records,
        rows_per_s: Math.round(s.loaded / first.seconds),
        seconds_total: Number(first.seconds.toFixed(1)),
        seconds_download: Number(s.downloadSeconds.toFixed(1)),
        seconds_load: Number(s.loadSeconds.toFixed(1)),
        requests: s.requests,
        refetch_seconds_download: Number(again.value.downloadSeconds.toFixed(1)),
        refetch_seconds_load: Number(again.value.loadSeconds.toFixed(1)),
        refetch_new_sales: again.value.newSales,
        peak_rss_MiB_after_first_load: Math.round(rssAfterFirst),
      },
      targets: [
        {
          label: 'every record received is loaded (no malformed records in this data set)',
          measured: `${s.loaded} of ${s.records}`,
          ok: s.records === s.loaded && s.loaded > 0.99 * SALES,
        },
        {
          label: 'the re-fetch finds no new sale and loads the same count',
          measured: `${again.value.loaded} loaded, ${again.value.newSales} new`,
          ok: again.value.loaded === s.loaded && again.value.newSales === 0,
        },
        {
          label: 'peak RSS of the extracting process < 1 GiB (first load and re-fetch)',
          measured: `${Math.round(peak)} MiB`,
          ok: peak < 1024,
        },
      ],
      notes:
        `One salesByPeriod window (by paid) of a month with ${SALES.toLocaleString('en-US')} sales from \`pinrecon ` +
        `simulate-api\` in a child process, ` +
        `client at ${RATE} requests/s; streamed gzip to the landing file, then loaded by DuckDB (read_json_objects, ` +
        `typed and checked in SQL, new and changed sales inserted into sales) ` +
        'under the extract memory cap. The second run re-fetches the same window within the lookback.',
    };
  } finally {
    await simulator.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
