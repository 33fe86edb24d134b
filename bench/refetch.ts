/**
 * The database file across re-fetches (issue 33 item 5): extracts October of the 100k bench month (178,200 sales
 * created 2026-10-01..2026-11-23, both searches), then fetches the same month twelve times more, as a partner
 * re-running the month-end does. Each run's file size, snapshot size, wall and CPU seconds, and whether it copied
 * the snapshot. A re-fetch of unchanged sales is to leave the file near its first size (rows replaced are reclaimed
 * or reused, not piled up). Then the analysts' snapshot publishing in this process: a publish with nothing new
 * (no copy) and one after a change (a copy of the whole file), each timed. PINRECON_BENCH_REFETCH_SALES sets the scale.
 */
import { rmSync, statSync } from 'node:fs';
import { snapshotPath } from '../core/warehouse.js';
import type { ExtractSummary } from '../pipelines/extract/extract.js';
import { peakRssMiB, type BenchResult } from './harness.js';
import { benchFolder, mib, measurePublishing, prepareMonth, round, runPinrecon } from './month-fixture.js';

export const name = 're-fetching a month twelve times: file size and snapshot publishing';

const defaultSales = 178_200;
const refetches = 12;
/**
 * Growth allowed from the first re-fetch to the twelfth: a tenth. The first re-fetch adds the blocks DuckDB frees and
 * reuses from then on (rows replaced are written before the old ones are freed); a file still growing is piling up.
 */
const allowedGrowth = 1.1;
/** A publish with nothing new reads 12 KiB of headers, whatever the file's size. */
const unchangedPublishSeconds = 0.05;

interface Fetch {
  run: number;
  seconds: number;
  cpuSeconds: number;
  databaseMiB: number;
  snapshotMiB: number;
  snapshotCopied: boolean;
  newSales: number;
  statusChanges: number;
}

export async function run(): Promise<BenchResult> {
  const sales = Number(process.env.PINRECON_BENCH_REFETCH_SALES ?? defaultSales);
  const folder = benchFolder('refetch');
  const month = await prepareMonth(folder.dir, sales);
  try {
    const fetches: Fetch[] = [];
    for (let run = 0; run <= refetches; run++) {
      const before = snapshotInode(month.database);
      const fetched = await runPinrecon<ExtractSummary>(month, [
        'extract',
        '--from',
        '2026-10-01',
        '--to',
        '2026-10-31',
      ]);
      fetches.push({
        run,
        seconds: round(fetched.seconds),
        cpuSeconds: round(fetched.cpuSeconds),
        databaseMiB: mib(statSync(month.database).size),
        snapshotMiB: mib(statSync(snapshotPath(month.database)).size),
        snapshotCopied: snapshotInode(month.database) !== before,
        newSales: fetched.json.newSales,
        statusChanges: fetched.json.statusChanges,
      });
    }
    const publishing = await measurePublishing(month.database);
    const first = fetches[0]!;
    const steady = fetches[1]!;
    const last = fetches[fetches.length - 1]!;
    const growth = last.databaseMiB / steady.databaseMiB;
    const refetchSeconds = fetches.slice(1).map((f) => f.seconds);
    return {
      metrics: {
        sales,
        first_fetch_seconds: first.seconds,
        first_database_MiB: first.databaseMiB,
        after_1_refetch_MiB: steady.databaseMiB,
        after_12_refetches_MiB: last.databaseMiB,
        growth: Number(growth.toFixed(3)),
        refetch_seconds_min: Math.min(...refetchSeconds),
        refetch_seconds_max: Math.max(...refetchSeconds),
        refetches_that_copied_the_snapshot: fetches.slice(1).filter((f) => f.snapshotCopied).length,
        publish_unchanged_seconds: publishing.unchanged,
        publish_changed_seconds: publishing.changed,
        copy_MiB_per_s: Math.round(publishing.fileMiB / publishing.changed),
        sizes_MiB: fetches.map((f) => f.databaseMiB).join(' → '),
        bench_peak_rss_MiB: Math.round(peakRssMiB()),
      },
      targets: [
        {
          label: `file after ${refetches} re-fetches ≤ ${allowedGrowth} × after the first (freed space reused)`,
          measured:
            `${first.databaseMiB} MiB fetched, ${steady.databaseMiB} after 1 re-fetch, ${last.databaseMiB} after ` +
            `${refetches} (× ${growth.toFixed(2)})`,
          ok: growth <= allowedGrowth,
        },
        {
          label: `a publish with nothing new copies nothing (≤ ${unchangedPublishSeconds} s at any size)`,
          measured: `${publishing.unchanged} s; a copy of ${publishing.fileMiB} MiB: ${publishing.changed} s`,
          ok: publishing.unchanged <= unchangedPublishSeconds,
        },
      ],
      notes:
        `Each run: \`pinrecon extract --from 2026-10-01 --to 2026-10-31\` (both searches) against the simulator, ` +
        `in its own process. New sales and status changes by run: ` +
        `${fetches.map((f) => `${f.newSales}/${f.statusChanges}`).join(', ')}. The publishing figures are ` +
        'publishSnapshot in the bench process on the final file: once with nothing new, once after one row.',
    };
  } finally {
    await month.simulator.stop();
    if (!folder.keep) rmSync(folder.dir, { recursive: true, force: true });
  }
}

function snapshotInode(database: string): number | undefined {
  return statSync(snapshotPath(database), { throwIfNoEntry: false })?.ino;
}
