/**
 * `pinrecon extract` as a user runs it: a spawned `node dist/cli/main.js` (run `npm run build` first) with a
 * config file pointing at the simulator. Killed with SIGKILL mid-run and run again, it ends with exactly the
 * result of a clean run in another database; no credential or token reaches its console or any table.
 * The killed runs and their re-runs are spawned (a process to kill); the other cases run the same command in
 * this process (runCommand), a spawn costing about a CPU-second.
 */
import { writeFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withWarehouse } from '../../core/warehouse.js';
import { startSimulator, type RunningSimulator } from '../../doubles/simulator/server.js';
import { startCli, type CliResult } from '../support/cli.js';
import { runCommand } from '../support/cli-in-process.js';
import { identifier, salesState, secret, sideTablesState, tempDir } from '../support/extract.js';

const range = ['--from', '2026-01-01', '--to', '2026-06-30'];

// One key secret for every database of this file: quarantined records keep their key's HMAC (security.keys
// "hash"), so a clean and a resumed database compare equal only under the same secret.
const cliEnv = { CI: '1', PINRECON_KEY_SECRET: 'extract-test-key-secret' };

/** Runs the CLI (not a terminal); with `kill`, sends SIGKILL `delayMs` after that many windows were reported done. */
function extractCli(
  args: string[],
  kill?: { afterWindows: number; delayMs: number },
  env: NodeJS.ProcessEnv = {},
): Promise<CliResult> {
  const running = startCli(args, { env: { ...cliEnv, ...env } });
  if (kill) {
    let killScheduled = false;
    running.child.stderr.on('data', () => {
      const done = running.stderr().match(/Z window \S+ \(by \w+\): /g)?.length ?? 0;
      if (!killScheduled && done >= kill.afterWindows) {
        killScheduled = true;
        setTimeout(() => running.child.kill('SIGKILL'), kill.delayMs);
      }
    });
  }
  return running.done;
}

/** The same command run in this process, for the cases that kill nothing. */
function extractHere(args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  return runCommand(args, { env: { ...cliEnv, ...env } });
}

/** An HTTP hop in front of the simulator that remembers every token the simulator hands out. */
async function startTokenRecorder(
  target: string,
): Promise<{ url: string; tokens: Set<string>; close: () => Promise<void> }> {
  const tokens = new Set<string>();
  const remember = (encoding: string | undefined, body: Buffer) => {
    let text: string;
    try {
      text = (encoding === 'gzip' ? gunzipSync(body) : body).toString();
    } catch {
      return; // a body cut short by a dropped connection
    }
    for (const match of text.matchAll(/"(?:accessToken|refreshToken)"\s*:\s*"([^"]+)"/g)) tokens.add(match[1]!);
  };
  const server: Server = createServer((incoming, outgoing) => {
    outgoing.on('error', () => undefined);
    const forwarded = request(
      new URL(incoming.url!, target),
      { method: incoming.method, headers: incoming.headers },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        const head: Buffer[] = [];
        let kept = 0;
        answer.on('data', (chunk: Buffer) => {
          if (kept < 64 * 1024) head.push(chunk);
          kept += chunk.length;
          outgoing.write(chunk);
        });
        answer.on('end', () => {
          outgoing.end();
          if (kept < 64 * 1024) remember(answer.headers['content-encoding'], Buffer.concat(head));
        });
        answer.on('error', () => outgoing.destroy());
      },
    );
    forwarded.on('error', () => outgoing.destroy());
    incoming.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    tokens,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

function writeConfig(dir: string, baseUrl: string, api: Record<string, unknown> = {}): string {
  const file = path.join(dir, 'pinrecon.config.json');
  writeFileSync(
    file,
    JSON.stringify({
      timezone: 'America/Sao_Paulo',
      database: 'pinrecon.duckdb',
      api: { baseUrl, identifier, secret, maxRequestsPerSecond: 20, refreshMarginSeconds: 0, ...api },
      extract: { landingDir: 'landing' },
    }),
  );
  return file;
}

describe('pinrecon extract as a user runs it (spawned where a process is killed)', () => {
  const slowAnswers = { slowRate: 1, slowMs: 400 };
  let simulator: RunningSimulator;
  let recorder: Awaited<ReturnType<typeof startTokenRecorder>>;
  const consoles: string[] = [];
  const resumedDir = tempDir('extract-killed');
  const cleanDir = tempDir('extract-clean');

  beforeAll(async () => {
    // Slow answers and short-lived tokens: the kills land mid-window and the tokens are renewed along the way.
    simulator = await startSimulator({
      seed: 5,
      identifier,
      secret,
      tokenLifetimeSeconds: 2,
      dataset: {
        from: '2025-12-25',
        to: '2026-07-05',
        salesCount: 36_000,
        timezone: 'America/Sao_Paulo',
        malformedEvery: 211,
      },
      faults: slowAnswers,
    });
    recorder = await startTokenRecorder(simulator.url);
  });
  afterAll(async () => {
    await recorder?.close();
    await simulator?.close();
  });

  it('killed with SIGKILL at any moment and run again, ends with exactly the clean result', async () => {
    // The clean result needs no slow answers (the data depends on the seed only); the killed runs get them back.
    simulator.setFaults({});
    const clean = await extractHere(['extract', ...range, '--config', writeConfig(cleanDir, recorder.url)]);
    consoles.push(clean.stdout, clean.stderr);
    expect(clean.code, clean.stderr).toBe(0);
    simulator.setFaults(slowAnswers);

    const config = writeConfig(resumedDir, recorder.url);
    // A window takes about a second here (slow answers, then the load): the delays spread the kills over
    // the download, the load and the commit of the next window.
    const kills = [0, 300, 600, 900].map((delayMs) => ({ afterWindows: 1, delayMs }));
    for (const kill of kills) {
      const killed = await extractCli(['extract', ...range, '--config', config], kill);
      consoles.push(killed.stdout, killed.stderr);
      expect(killed.signal).toBe('SIGKILL');
    }
    // The re-run is killed by nobody: it needs no slow answers (the data depends on the seed only).
    simulator.setFaults({});
    const resumed = await extractCli(['extract', ...range, '--config', config]);
    consoles.push(resumed.stdout, resumed.stderr);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toMatch(/windows already extracted; skipping them/);
    expect(resumed.stdout).toMatch(/\d+ windows fetched, [1-9]\d? skipped/);

    const read = (dir: string) =>
      withWarehouse(path.join(dir, 'pinrecon.duckdb'), { timezone: 'America/Sao_Paulo' }, async (w) => ({
        sales: await salesState(w),
        side: await sideTablesState(w),
        runs: await w.all<{ status: string }>(`SELECT status FROM pipeline_runs ORDER BY started_at`),
      }));
    const cleanState = await read(cleanDir);
    const resumedState = await read(resumedDir);
    expect(cleanState.sales.length).toBeGreaterThan(30_000);
    expect(cleanState.side.quarantine.length).toBeGreaterThan(0);
    expect(resumedState.sales).toEqual(cleanState.sales);
    expect(resumedState.side).toEqual(cleanState.side);
    // The killed runs are visible as such; the last one succeeded.
    expect(resumedState.runs.map((r) => r.status)).toEqual([...kills.map(() => 'abandoned'), 'succeeded']);
  });

  it('no secret or token reaches the console or any column of any table', async () => {
    expect(recorder.tokens.size).toBeGreaterThan(2); // logins and refreshes happened
    const needles = [secret, ...recorder.tokens];
    for (const text of consoles) {
      for (const needle of needles) expect(text.includes(needle), 'a credential or token was printed').toBe(false);
    }
    for (const dir of [cleanDir, resumedDir]) {
      await withWarehouse(path.join(dir, 'pinrecon.duckdb'), { readOnly: true }, async (w) => {
        const columns = await w.all<{ table_name: string; column_name: string }>(
          `SELECT table_name, column_name FROM information_schema.columns WHERE data_type = 'VARCHAR' AND ` +
            `table_schema = 'main'`,
        );
        expect(columns.length).toBeGreaterThan(20);
        for (const { table_name, column_name } of columns) {
          const hits = await w.one<{ n: string }>(
            `SELECT count(*) AS n FROM "${table_name}"
             WHERE ${needles.map(() => `contains("${column_name}", ?)`).join(' OR ')}`,
            needles,
          );
          expect(hits!.n, `${table_name}.${column_name} holds a credential or token`).toBe('0');
        }
      });
    }
  });

  it('prints the summary as JSON with --json, and the plan with --dry-run', async () => {
    const config = path.join(cleanDir, 'pinrecon.config.json');
    const dry = await extractHere(['extract', ...range, '--dry-run', '--config', config]);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(/2026-06-01\.\.2026-06-30\s+created\s+skip/);
    expect(dry.stdout).toMatch(/12 windows: 0 to fetch, 12 already done and skipped/);
    const json = await extractHere([
      'extract',
      '--from',
      '2026-01-01',
      '--to',
      '2026-01-31',
      '--by',
      'paid',
      '--json',
      '--config',
      config,
    ]);
    expect(json.code, json.stderr).toBe(0);
    const summary = JSON.parse(json.stdout) as { ok: boolean; windows: { skipped: number } };
    expect(summary).toMatchObject({ ok: true, windows: { planned: 1, fetched: 0, skipped: 1 } });
  });

  it('bad dates are a usage error (exit 2); bad credentials fail the job (exit 1) with what to do', async () => {
    const config = path.join(cleanDir, 'pinrecon.config.json');
    const badDate = await extractHere(['extract', '--from', '2026-02-30', '--to', '2026-03-01', '--config', config]);
    expect(badDate.code).toBe(2);
    expect(badDate.stderr).toMatch(/--from must be a date written YYYY-MM-DD, got "2026-02-30"/);
    const reversed = await extractHere(['extract', '--from', '2026-03-01', '--to', '2026-02-01', '--config', config]);
    expect(reversed.code).toBe(2);

    const dir = tempDir('extract-badcreds');
    const file = writeConfig(dir, simulator.url);
    const badCredentials = await extractHere(
      ['extract', '--from', '2026-01-01', '--to', '2026-01-31', '--config', file],
      {
        PINRECON_API_SECRET: 'not-the-secret',
      },
    );
    expect(badCredentials.code).toBe(1);
    expect(badCredentials.stderr).toMatch(/getToken/);
    expect(badCredentials.stderr).toMatch(/what to do: Check api\.identifier and api\.secret/);
    expect(badCredentials.stderr).not.toContain('not-the-secret');

    // Nothing listens on port 9: that is the address to check, not the credentials. One retry, not six
    // backoffs of up to 8 s: the message is the point here, not the patience.
    const oneRetry = writeConfig(tempDir('extract-unreachable'), simulator.url, { maxRetries: 1 });
    const unreachable = await extractHere(
      ['extract', '--from', '2026-01-01', '--to', '2026-01-31', '--config', oneRetry],
      {
        PINRECON_API_BASE_URL: 'http://127.0.0.1:9',
      },
    );
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toMatch(/what to do: Check api\.baseUrl/);
    expect(unreachable.stderr).not.toMatch(/Check api\.identifier/);
  });
});

describe('pinrecon extract with extract.historyStart: the back-fill', () => {
  let simulator: RunningSimulator;
  const resumedDir = tempDir('backfill-killed');
  const cleanDir = tempDir('backfill-clean');
  const june = ['--from', '2026-06-01', '--to', '2026-06-30', '--by', 'created'];
  const env = { PINRECON_HISTORY_START: '2026-01-01' };
  const windowRequests = () => simulator.stats().byEndpoint.salesByPeriod ?? 0;

  beforeAll(async () => {
    // Answers are slowed for the killed run only: a kill lands while a back-fill window downloads or loads.
    simulator = await startSimulator({
      seed: 9,
      identifier,
      secret,
      dataset: { from: '2025-12-28', to: '2026-07-02', salesCount: 8_000, timezone: 'America/Sao_Paulo' },
    });
  });
  afterAll(async () => {
    await simulator?.close();
  });

  it(
    'back-fills January to May by creation date first; killed ' +
      'with SIGKILL, a re-run fetches only what was not committed',
    async () => {
      const clean = await extractHere(['extract', ...june, '--config', writeConfig(cleanDir, simulator.url)], env);
      expect(clean.code, clean.stderr).toBe(0);
      expect(clean.stdout).toMatch(/back-fill from extract\.historyStart 2026-01-01 \(by creation date\):\n/);
      expect(clean.stdout).toMatch(/extract 2026-01-01\.\.2026-05-31 by created: 5 windows fetched, 0 skipped/);

      const config = writeConfig(resumedDir, simulator.url);
      simulator.setFaults({ slowRate: 1, slowMs: 300 });
      const killed = await extractCli(['extract', ...june, '--config', config], { afterWindows: 1, delayMs: 150 }, env);
      expect(killed.signal).toBe('SIGKILL');
      simulator.setFaults({});
      // Committed windows before the kill: back-fill ones (before June) and June's own.
      const database = (dir: string) => path.join(dir, 'pinrecon.duckdb');
      const { committed, juneCommitted } = await withWarehouse(
        database(resumedDir),
        { timezone: 'America/Sao_Paulo' },
        async (w) => {
          const row = (await w.one<{ before_june: string; june: string }>(
            `SELECT count(*) FILTER (WHERE window_start < DATE '2026-06-01') AS before_june,
                count(*) FILTER (WHERE window_start = DATE '2026-06-01') AS june
         FROM extract_windows`,
          ))!;
          return { committed: Number(row.before_june), juneCommitted: Number(row.june) };
        },
      );
      expect(committed).toBeGreaterThanOrEqual(1);

      const before = windowRequests();
      const resumed = await extractCli(['extract', ...june, '--config', config], undefined, env);
      expect(resumed.code, resumed.stderr).toBe(0);
      // The back-fill's windows not committed before the kill, and June's: nothing done is asked for again.
      expect(windowRequests() - before).toBe(5 - committed + (1 - juneCommitted));
      const read = (dir: string) =>
        withWarehouse(database(dir), { timezone: 'America/Sao_Paulo' }, async (w) => ({
          sales: await salesState(w),
          side: await sideTablesState(w),
        }));
      expect(await read(resumedDir)).toEqual(await read(cleanDir));

      const again = await extractHere(['extract', ...june, '--config', config], env);
      expect(again.code, again.stderr).toBe(0);
      expect(again.stdout).toMatch(/extract 2026-01-01\.\.2026-05-31 by created: 0 windows fetched, 5 skipped/);
    },
  );
});
