/**
 * `pinrecon query "select * from sales" --format arrow` against 1,000,000 sales, as the user runs it (the
 * built CLI in a child process, stdout into a file), next to `--format csv` of the same query: seconds
 * and the CLI process's peak RSS for each, and the Arrow stream read back to count its rows; then the Arrow query
 * again after `pinrecon keys protect`, to show what masking values against whole stored keys costs. Each CLI process
 * reports its own peak RSS at exit (a preloaded one-line module), so DuckDB's share is included.
 */
import { execFileSync, spawn } from 'node:child_process';
import { createWriteStream, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { tableFromIPC } from 'apache-arrow';
import { publishSnapshot, Warehouse } from '../core/warehouse.js';
import { salesInsertSql } from './generators/sales.js';
import { timed, type BenchResult } from './harness.js';

export const name = 'query: 1,000,000 sales as Arrow vs CSV';

const sales = 1_000_000;
const timezone = 'America/Sao_Paulo';
const cli = path.resolve(import.meta.dirname, '..', 'cli', 'main.js');

export async function run(): Promise<BenchResult> {
  const dir = mkdtempSync(path.join(tmpdir(), 'pinrecon-bench-arrow-'));
  try {
    const database = path.join(dir, 'bench.duckdb');
    const warehouse = await Warehouse.open(database, { timezone });
    try {
      await warehouse.run(`${salesInsertSql(sales)} CHECKPOINT;`);
      await publishSnapshot(warehouse);
    } finally {
      warehouse.close();
    }
    const configFile = path.join(dir, 'pinrecon.config.json');
    writeFileSync(configFile, JSON.stringify({ database, timezone }));
    const reportRss = path.join(dir, 'report-rss.mjs');
    writeFileSync(
      reportRss,
      `process.on('exit', () => process.stderr.write('@@RSS ' + process.resourceUsage().maxRSS + '\\n'));\n`,
    );
    const query = (format: string) =>
      runQuery(
        ['--import', reportRss, cli, 'query', 'select * from sales', '--format', format, '--config', configFile],
        path.join(dir, `out.${format}`),
      );
    const arrow = await query('arrow');
    const csv = await query('csv');
    const arrowRows = tableFromIPC(readFileSync(path.join(dir, 'out.arrow'))).numRows;
    // What the whole keys cost: the same query after `pinrecon keys protect` (the mask and the last 4 of each key, and
    // its HMAC, as a new database keeps them), so no text column's values are looked up among stored PINs.
    execFileSync(process.execPath, [cli, 'keys', 'protect', '--config', configFile], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const keysProtected = await query('arrow');
    return {
      metrics: {
        rows: sales,
        arrow_seconds: Number(arrow.seconds.toFixed(1)),
        arrow_peak_rss_MiB: arrow.rssMiB,
        arrow_MiB: arrow.outputMiB,
        csv_seconds: Number(csv.seconds.toFixed(1)),
        csv_peak_rss_MiB: csv.rssMiB,
        csv_MiB: csv.outputMiB,
        arrow_keys_protected_seconds: Number(keysProtected.seconds.toFixed(1)),
        arrow_keys_protected_peak_rss_MiB: keysProtected.rssMiB,
      },
      targets: [
        { label: 'the Arrow stream reads back with every row', measured: String(arrowRows), ok: arrowRows === sales },
        {
          label: 'Arrow no slower than CSV',
          measured: `${arrow.seconds.toFixed(1)} s vs ${csv.seconds.toFixed(1)} s`,
          ok: arrow.seconds <= csv.seconds,
        },
        {
          label: 'Arrow streams: peak RSS ≤ 600 MiB',
          measured:
            `${arrow.rssMiB} MiB` +
            (arrow.rssMiB > 600
              ? `: the database keeps whole keys (security.keys "store", a database older than the key modes), and ` +
                `every text column's values are looked ` +
                `up among its ${sales.toLocaleString('en-US')} stored PINs, each column with a hash table of its ` +
                `own; after \`pinrecon keys protect\` ${keysProtected.rssMiB} MiB in ` +
                `${keysProtected.seconds.toFixed(1)} s`
              : ''),
          ok: arrow.rssMiB <= 600,
        },
        {
          label: 'the same after `pinrecon keys protect` (security.keys "hash", the default): ≤ 600 MiB',
          measured: `${keysProtected.rssMiB} MiB in ${keysProtected.seconds.toFixed(1)} s`,
          ok: keysProtected.rssMiB <= 600,
        },
      ],
      notes:
        'The built CLI in a child process reading the published snapshot, stdout into a file; PIN masking included ' +
        '(the query is wrapped to mask stored PINs, the key column masked). ' +
        "Peak RSS is the CLI process's own (the bench process itself is small).",
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs the CLI with stdout into `output`; its seconds, its own peak RSS and the output's size. */
async function runQuery(
  args: string[],
  output: string,
): Promise<{ seconds: number; rssMiB: number; outputMiB: number }> {
  let stderr = '';
  const { seconds } = await timed(
    () =>
      new Promise<void>((resolve, reject) => {
        const out = createWriteStream(output);
        out.once('open', () => {
          const child = spawn(process.execPath, args, { stdio: ['ignore', out, 'pipe'] });
          child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
          child.once('error', reject);
          child.once('close', (code) =>
            code === 0 ? resolve() : reject(new Error(`query exited ${code}: ${stderr.slice(-2000)}`)),
          );
        });
      }),
  );
  const rss = /@@RSS (\d+)/.exec(stderr);
  return {
    seconds,
    rssMiB: rss ? Math.round(Number(rss[1]) / 1024) : NaN,
    outputMiB: Number((statSync(output).size / 2 ** 20).toFixed(1)),
  };
}
