/**
 * `pinrecon run` as schedulers run it against the simulator, when things go wrong: a --ledger file that is not
 * there and a period after the as-of date are bad usage (exit 2); no ledger at all for the period fails before
 * extracting (exit 1); a failing step still prints the table of steps before the error (exit 1); a missing ledger
 * file with earlier imports covering the period warns and goes on (exit 0). The failing step's case spawns the
 * built CLI (its wiring); the others run the same command in this process, a spawn costing about a CPU-second.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configSchema, type Config } from '../../config/schema.js';
import { Warehouse } from '../../core/warehouse.js';
import { generateLedger } from '../../doubles/simulator/ledger-generator.js';
import { startSimulator, type RunningSimulator } from '../../doubles/simulator/server.js';
import { runCli, unusedPort } from '../support/cli.js';
import { runCommand } from '../support/cli-in-process.js';
import { ledgerImportStep } from '../support/commands.js';

const period = '2026-03';
const asOf = '2026-04-10';

/** As a scheduler runs it: not a terminal, no SMTP URL from the environment. */
const schedulerEnv = { CI: 'true', PINRECON_SMTP_URL: '' };
const pinrecon = (args: string[], cwd: string) => runCommand(args, { cwd, env: schedulerEnv });

describe('pinrecon run when something is wrong', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'pinrecon-run-cli-'));
  let simulator: RunningSimulator;
  let ledgerFile: string;
  /** What pinrecon.config.json says, its database path resolved, for a setup step run in this process. */
  let config: Config;
  const runArgs = (args: string[]) => [
    'run',
    '--period',
    period,
    '--as-of',
    asOf,
    '--config',
    'pinrecon.config.json',
    ...args,
  ];
  const run = (...args: string[]) => pinrecon(runArgs(args), dir);

  beforeAll(async () => {
    simulator = await startSimulator({
      seed: 21,
      identifier: 'run-cli',
      secret: 'run-cli-secret',
      dataset: { from: '2026-03-01', to: asOf, salesCount: 400, timezone: 'America/Sao_Paulo' },
    });
    const fileConfig = {
      timezone: 'America/Sao_Paulo',
      database: 'pinrecon.duckdb',
      api: { baseUrl: simulator.url, identifier: 'run-cli', secret: 'run-cli-secret', maxRequestsPerSecond: 40 },
      reports: { outDir: 'reports' },
      // Nothing listens there: sending fails at once.
      email: { smtpUrl: `smtp://127.0.0.1:${await unusedPort()}`, retries: 0, to: ['finance@example.com'] },
    };
    writeFileSync(path.join(dir, 'pinrecon.config.json'), JSON.stringify(fileConfig));
    config = configSchema.parse({ ...fileConfig, database: path.join(dir, 'pinrecon.duckdb') });
    // Named otherwise than ledger.path (ledger.csv), so only --ledger finds it.
    ledgerFile = path.join(dir, 'march.csv');
    await generateLedger(simulator.dataset, {
      period,
      asOf,
      file: ledgerFile,
      reconciliation: configSchema.parse({}).reconciliation,
      seed: 4,
      salesPerBreak: 60,
    });
  });

  afterAll(async () => {
    await simulator?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it(
    'exits 2 when the --ledger file does not exist, like ' + '`ledger import`, before asking the API anything',
    async () => {
      const result = await run('--ledger', 'nope.csv');
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(
        `error: The ledger file ${path.join(dir, 'nope.csv')} (--ledger) does not exist.`,
      );
      expect(simulator.stats().requests).toBe(0);
    },
  );

  it('exits 2 for a period that starts after the as-of date', async () => {
    const result = await pinrecon(
      ['run', '--period', '2030-01', '--as-of', asOf, '--config', 'pinrecon.config.json'],
      dir,
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('error: The period 2030-01 starts after the as-of date 2026-04-10');
  });

  it(
    'fails before extracting when there is no ledger file and ' +
      'no imported ledger line of the period, saying what to do',
    async () => {
      const result = await run();
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(
        `error: No ledger for ${period}: no ledger file at ${path.join(dir, 'ledger.csv')} (ledger.path)`,
      );
      expect(result.stderr).toMatch(/what to do: .*--ledger FILE.*ledger\.path/);
      expect(simulator.stats().requests).toBe(0);
      const warehouse = await Warehouse.open(path.join(dir, 'pinrecon.duckdb'), { readOnly: true });
      try {
        const runs = await warehouse.all(`SELECT command, status FROM pipeline_runs ORDER BY started_at`);
        expect(runs).toEqual([{ command: 'run', status: 'failed' }]);
      } finally {
        warehouse.close();
      }
    },
  );

  it('prints the table of steps when a step fails, then the error, and exits 1', async () => {
    // Spawned: the command's wiring, as a scheduler sees it (exit code, table, error).
    const result = await runCli(runArgs(['--ledger', ledgerFile, '--email']), { cwd: dir, env: schedulerEnv });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(
      /^pinrecon run 2026-03 \(as of 2026-04-10; .*\) — run \S+ — FAILED at report \+ email$/m,
    );
    expect(result.stdout).toMatch(/^extract\s+succeeded\s+\d+\.\d\s+\d+ windows fetched/m);
    expect(result.stdout).toMatch(/^ledger import\s+succeeded\s+\d+\.\d\s+\d+ lines: \d+ accepted, 0 rejected$/m);
    expect(result.stdout).toMatch(/^reconcile\s+succeeded\s+/m);
    expect(result.stdout).toMatch(
      /^report \+ email\s+failed\s+\d+\.\d\s+Could not send the report email to finance@example\.com/m,
    );
    expect(result.stderr).toMatch(/error: Could not send the report email/);
    expect(result.stderr).toMatch(/what to do: The workbook is on disk at/);
    const warehouse = await Warehouse.open(path.join(dir, 'pinrecon.duckdb'), { readOnly: true });
    try {
      const job = await warehouse.one(
        `SELECT status, details FROM pipeline_runs WHERE command = 'run' ORDER BY started_at DESC LIMIT 1`,
      );
      expect(job!.status).toBe('failed');
      expect(JSON.parse(String(job!.details)).steps.map((s: { status: string }) => s.status)).toEqual([
        'succeeded',
        'succeeded',
        'succeeded',
        'failed',
      ]);
    } finally {
      warehouse.close();
    }

    // For machines: one JSON document on stdout, with the steps.
    const json = await run('--ledger', ledgerFile, '--email', '--json');
    expect(json.code).toBe(1);
    const document = JSON.parse(json.stdout) as {
      ok: boolean;
      exitCode: number;
      steps: { step: string; status: string }[];
    };
    expect(document).toMatchObject({ ok: false, exitCode: 1 });
    expect(document.steps.map((s) => `${s.step}: ${s.status}`)).toEqual([
      'extract: succeeded',
      'ledger import: succeeded',
      'reconcile: succeeded',
      'report + email: failed',
    ]);
  });

  it('goes on with a warning when the ledger file is absent but earlier imports cover the period', async () => {
    // The earlier import, as setup in this process (test/support/commands.ts, issue 27).
    await ledgerImportStep(config, ledgerFile);
    const result = await run();
    expect(result.stderr).not.toContain('error:');
    expect(result.code).toBe(0);
    const defaultLedger = path.join(dir, 'ledger.csv');
    expect(result.stderr).toContain(
      `warning: no ledger file at ${defaultLedger} (ledger.path): reconciling against the ledger lines already ` +
        `imported.`,
    );
    const ledgerStep = result.stdout.split('\n').find((line) => line.startsWith('ledger import'));
    expect(ledgerStep).toMatch(/^ledger import\s+skipped\s+0\.0\s+no file at /);
    expect(ledgerStep!.endsWith(`no file at ${defaultLedger}`)).toBe(true);
    expect(result.stdout).toMatch(/^report\s+succeeded\s+/m);
  });
});
