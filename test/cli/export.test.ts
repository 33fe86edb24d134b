/**
 * `pinrecon export`: a reconciled period's marts and the tables beside them written one file each (Parquet and
 * CSV, flat or Hive-partitioned), readable back with DuckDB, only that period's rows, exact decimals, no PIN whole;
 * a clear error for a period never reconciled; the snapshot used while a job holds the database.
 * The first case spawns the CLI (its wiring); the others run the same command in this process.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportedMarts, exportPeriod } from '../../pipelines/analysts/export.js';
import { publishSnapshot } from '../../core/warehouse.js';
import { runCli } from '../support/cli.js';
import { runCommand } from '../support/cli-in-process.js';
import { capturedOutput, holdWriteLock, openWarehouse, temporaryDirectory, testConfig } from '../support/ledger.js';

const temp = temporaryDirectory('export');
const config = testConfig(temp.dir);
const configFile = path.join(temp.dir, 'pinrecon.config.json');

/** `pinrecon export … --config`, in this process (a spawn costs about a CPU-second). */
function exportCli(...args: string[]) {
  return runCommand(['export', ...args, '--config', configFile]);
}

/** Reads an exported file back with DuckDB, as another tool would. */
async function readBack(file: string): Promise<Record<string, unknown>[]> {
  const reader = file.endsWith('.csv') ? `read_csv('${file}', all_varchar = true)` : `read_parquet('${file}')`;
  return query(`SELECT * FROM ${reader}`);
}

/** A query over exported files in a DuckDB of its own, as another tool would run it. */
async function query(sql: string): Promise<Record<string, unknown>[]> {
  const instance = await DuckDBInstance.create(':memory:', {
    autoinstall_known_extensions: 'false',
    autoload_known_extensions: 'false',
  });
  try {
    const connection = await instance.connect();
    const rows = (await connection.runAndReadAll(sql)).getRowObjectsJson();
    connection.closeSync();
    return rows;
  } finally {
    instance.closeSync();
  }
}

beforeAll(async () => {
  writeFileSync(
    configFile,
    JSON.stringify({ database: config.database, reports: { outDir: path.join(temp.dir, 'reports') } }),
  );
  const warehouse = await openWarehouse(config);
  try {
    // The marts as reconcile writes them (docs/DATA.md), for two periods; plus a PIN column that must not leave whole.
    await warehouse.run(`ALTER TABLE recon_exceptions ADD COLUMN IF NOT EXISTS key VARCHAR`);
    for (const period of ['2024-03', '2024-04']) {
      await warehouse.run(
        `INSERT INTO recon_exceptions (period, finding_id, exception_type, family, partner_reference, transaction_id,
          ledger_value, provider_value, difference,
           currency_code, details, first_detected_at, key_last4, amount, as_of, built_at, run_id, key)
         VALUES ($1, 'f1', 'cost_mismatch', 'amounts', 'R-1', 11, 10.0001, 10.5, 0.4999, 'BRL', 'cost differs', now(),
           '1234', 0.4999, '2024-05-01', now(), 'r', 'SECRET-PIN-1234'),
                ($1, 'f2', 'unredeemed_key', 'unredeemed', 'R-2', 12, NULL, NULL, NULL, 'BRL', 'not redeemed', now(),
                  '9876', 0, '2024-05-01', now(), 'r', 'OTHER-PIN-9876')`,
        [period],
      );
      await warehouse.run(
        `INSERT INTO recon_summary (period, as_of, currency_code, ledger_orders, ledger_active_orders,
           ledger_sales_total, ledger_cost_total, provider_sales, provider_billable_sales, provider_sales_total,
           provider_cost_total, provider_margin, matched, exceptions, built_at, run_id)
         VALUES ($1, '2024-05-01', 'BRL', 2, 2, 20.5, 19.0001, 2, 2, 21, 19.5, 1.5, 1, 2, now(), 'r')`,
        [period],
      );
      await warehouse.run(
        `INSERT INTO recon_bridge VALUES
           ($1, 'BRL', 0, 'ledger expected cost', NULL, 19.0001, 2, '2024-05-01', now(), 'r'),
           ($1, 'BRL', 1, 'cost mismatches', 'cost_mismatch', 0.4999, 1, '2024-05-01', now(), 'r'),
           ($1, 'BRL', 2, 'provider cost', NULL, 19.5, 2, '2024-05-01', now(), 'r')`,
        [period],
      );
      await warehouse.run(`INSERT INTO recon_aging VALUES ($1, '2024-05-01', 'BRL', '0-7', 1, 6, now(), 'r')`, [
        period,
      ]);
      await warehouse.run(
        `INSERT INTO recon_runs (run_id, period, as_of, built_at, exceptions, new, still_open, cleared) VALUES ('r', ` +
          `$1, '2024-05-01', now(), 2, 2, 0, 0)`,
        [period],
      );
      await warehouse.run(
        `INSERT INTO recon_decisions (finding_id, period, decision, note, decided_by, decided_at, source,
          chain_position, row_sha256)
         VALUES ('f1', $1, 'claim', 'charged twice', 'ana', now(), 'cli', 1, 'not-a-real-hash')`,
        [period],
      );
      // One action of the period and its two status changes (columns "at" and "by" quoted in the table).
      await warehouse.run(
        `INSERT INTO recon_actions (action_id, period, finding_id, kind, amount, currency_code, status, proposed_by,
          proposed_at)
         VALUES ('A-' || $1 || '-0001', $1, 'f1', 'claim', 0.4999, 'BRL', 'approved', 'ana', now())`,
        [period],
      );
      await warehouse.run(
        `INSERT INTO recon_action_events (action_id, "at", "by", from_status, to_status)
         VALUES ('A-' || $1 || '-0001', now(), 'ana', NULL, 'proposed'), ('A-' || $1 || '-0001', now(), 'rui',
           'proposed', 'approved')`,
        [period],
      );
    }
    await publishSnapshot(warehouse);
  } finally {
    warehouse.close();
  }
});
afterAll(() => temp.remove());

describe('pinrecon export', () => {
  it('writes one Parquet file per mart with the period rows only, exact decimals and no PIN whole', async () => {
    const out = path.join(temp.dir, 'parquet');
    // Spawned: the command's wiring, as users run it.
    const result = await runCli(['export', '--period', '2024-03', '--out', out, '--config', configFile]);
    expect(result.code, result.stderr).toBe(0);
    expect(readdirSync(out).sort()).toEqual(exportedMarts.map((m) => `${m}-2024-03.parquet`).sort());
    expect(result.stdout).toMatch(/recon_exceptions-2024-03.parquet {2}\(2 rows\)/);
    const findings = await readBack(path.join(out, 'recon_exceptions-2024-03.parquet'));
    expect(findings.map((r) => [r.period, r.finding_id, r.ledger_value, r.difference, r.key, r.key_last4])).toEqual([
      ['2024-03', 'f1', '10.0001', '0.4999', '****1234', '1234'],
      ['2024-03', 'f2', null, null, '****9876', '9876'],
    ]);
    const bridge = await readBack(path.join(out, 'recon_bridge-2024-03.parquet'));
    expect(bridge.map((r) => [r.step, r.amount])).toEqual([
      [0, '19.0001'],
      [1, '0.4999'],
      [2, '19.5000'],
    ]);
    expect(await readBack(path.join(out, 'recon_summary-2024-03.parquet'))).toHaveLength(1);
    expect(await readBack(path.join(out, 'recon_aging-2024-03.parquet'))).toEqual([
      expect.objectContaining({ aging_bucket: '0-7', keys: '1', cost_total: '6.0000' }),
    ]);
    // Who decided what goes out with the figures (issue 14).
    expect(await readBack(path.join(out, 'recon_decisions-2024-03.parquet'))).toEqual([
      expect.objectContaining({
        finding_id: 'f1',
        decision: 'claim',
        decided_by: 'ana',
        source: 'cli',
        row_sha256: 'not-a-real-hash',
      }),
    ]);
  });

  it('writes CSV with headers into reports.outDir by default, and records the run', async () => {
    const result = await exportCli('--period', '2024-04', '--format', 'csv', '--json');
    expect(result.code, result.stderr).toBe(0);
    const summary = JSON.parse(result.stdout) as { files: { mart: string; path: string; rows: number }[] };
    // The tables beside the marts go out too (issue 31): actions, their events, roll-forward, suggestions, carried
    // forward.
    expect(summary.files.map((f) => [f.mart, f.rows])).toEqual([
      ['recon_exceptions', 2],
      ['recon_summary', 1],
      ['recon_bridge', 3],
      ['recon_aging', 1],
      ['recon_decisions', 1],
      ['recon_actions', 1],
      ['recon_action_events', 2],
      ['recon_roll_forward', 0],
      ['recon_match_suggestions', 0],
      ['recon_carried_forward', 0],
    ]);
    const file = path.join(temp.dir, 'reports', 'recon_exceptions-2024-04.csv');
    expect(summary.files[0]!.path).toBe(file);
    const rows = await readBack(file);
    expect(rows.map((r) => [r.period, r.key, r.ledger_value])).toEqual([
      ['2024-04', '****1234', '10.0001'],
      ['2024-04', '****9876', null],
    ]);
    const warehouse = await openWarehouse(config);
    try {
      expect(await warehouse.one(`SELECT command, status FROM pipeline_runs WHERE command = 'export'`)).toEqual({
        command: 'export',
        status: 'succeeded',
      });
    } finally {
      warehouse.close();
    }
  });

  it('masks any text value equal to a PIN stored in sales, whatever its column (here details, any case)', async () => {
    const warehouse = await openWarehouse(config);
    try {
      await warehouse.run(
        `INSERT INTO sales (transaction_id, key, first_seen_at, last_seen_at) VALUES (99, 'LEAKY-PIN-5555', now(), ` +
          `now())`,
      );
      await warehouse.run(
        `INSERT INTO recon_exceptions (period, finding_id, exception_type, family, partner_reference, transaction_id,
          currency_code, details, first_detected_at, key_last4, amount, as_of, built_at, run_id)
         VALUES ('2024-05', 'f9', 'unredeemed_key', 'unredeemed', ' leaky-pin-5555 ', 99, 'BRL', 'LEAKY-PIN-5555',
           now(), '5555', 0, '2024-06-01', now(), 'r')`,
      );
      await warehouse.run(
        `INSERT INTO recon_runs (run_id, period, as_of, built_at, exceptions, new, still_open, cleared) VALUES ` +
          `('r5', '2024-05', '2024-06-01', now(), 1, 1, 0, 0)`,
      );
    } finally {
      warehouse.close();
    }
    const out = path.join(temp.dir, 'by-value');
    const result = await exportCli('--period', '2024-05', '--out', out, '--format', 'csv');
    expect(result.code, result.stderr).toBe(0);
    const rows = await readBack(path.join(out, 'recon_exceptions-2024-05.csv'));
    expect(rows.map((r) => [r.partner_reference, r.details, r.exception_type])).toEqual([
      ['****5555', '****5555', 'unredeemed_key'],
    ]);
    expect(readFileSync(path.join(out, 'recon_exceptions-2024-05.csv'), 'utf8')).not.toMatch(/leaky-pin/i);
  });

  it(
    'neutralises formula injection in CSV cells (a leading ' + 'apostrophe), leaving plain numbers and Parquet alone',
    async () => {
      const warehouse = await openWarehouse(config);
      try {
        await warehouse.run(
          `INSERT INTO recon_exceptions (period, finding_id, exception_type, family, partner_reference, transaction_id,
            currency_code, details, first_detected_at, key_last4, amount, as_of, built_at, run_id)
         VALUES ('2024-07', 'f1', 'unredeemed_key', 'unredeemed', '=HYPERLINK("http://evil","x")', 1, 'BRL',
           '@SUM(1+1)*cmd|calc', now(), '0001', -1.5, '2024-08-01', now(), 'r'),
                ('2024-07', 'f2', 'unredeemed_key', 'unredeemed', '-12.50', 2, 'BRL', '+1+1', now(), '0002', 0,
                  '2024-08-01', now(), 'r')`,
        );
        await warehouse.run(
          `INSERT INTO recon_runs (run_id, period, as_of, built_at, exceptions, new, still_open, cleared) VALUES ` +
            `('r7', '2024-07', '2024-08-01', now(), 2, 2, 0, 0)`,
        );
        const outDir = path.join(temp.dir, 'formulas');
        await exportPeriod(warehouse, config, { period: '2024-07', format: 'csv', outDir }, capturedOutput().output);
        const rows = await readBack(path.join(outDir, 'recon_exceptions-2024-07.csv'));
        expect(rows.map((r) => [r.partner_reference, r.details, r.amount])).toEqual([
          [`'=HYPERLINK("http://evil","x")`, `'@SUM(1+1)*cmd|calc`, '-1.5000'],
          ['-12.50', `'+1+1`, '0.0000'],
        ]);
        await exportPeriod(
          warehouse,
          config,
          { period: '2024-07', format: 'parquet', outDir },
          capturedOutput().output,
        );
        expect((await readBack(path.join(outDir, 'recon_exceptions-2024-07.parquet')))[0]!.partner_reference).toBe(
          '=HYPERLINK("http://evil","x")',
        );
      } finally {
        warehouse.close();
      }
    },
  );

  it('--layout hive: <mart>/period=YYYY-MM/part-0.parquet, read back as one table across months', async () => {
    const out = path.join(temp.dir, 'lake');
    for (const period of ['2024-03', '2024-04']) {
      const result = await exportCli('--period', period, '--out', out, '--layout', 'hive');
      expect(result.code, result.stderr).toBe(0);
    }
    expect(existsSync(path.join(out, 'recon_exceptions', 'period=2024-03', 'part-0.parquet'))).toBe(true);
    const lake = (mart: string) => `read_parquet('${path.join(out, mart)}/*/*.parquet', hive_partitioning = true)`;
    const findings = await query(`SELECT period, finding_id, key FROM ${lake('recon_exceptions')} ORDER BY ALL`);
    expect(findings).toEqual([
      { period: '2024-03', finding_id: 'f1', key: '****1234' },
      { period: '2024-03', finding_id: 'f2', key: '****9876' },
      { period: '2024-04', finding_id: 'f1', key: '****1234' },
      { period: '2024-04', finding_id: 'f2', key: '****9876' },
    ]);
    // The period is the folder, not a column stored twice; events (no period column) get it from their folder.
    const events = await query(
      `SELECT period, action_id, "by", to_status FROM ${lake('recon_action_events')} ORDER BY ALL`,
    );
    expect(events.map((e) => [e.period, e.action_id, e.by, e.to_status])).toEqual([
      ['2024-03', 'A-2024-03-0001', 'ana', 'proposed'],
      ['2024-03', 'A-2024-03-0001', 'rui', 'approved'],
      ['2024-04', 'A-2024-04-0001', 'ana', 'proposed'],
      ['2024-04', 'A-2024-04-0001', 'rui', 'approved'],
    ]);
    expect((await exportCli('--period', '2024-03', '--layout', 'delta')).stderr).toMatch(
      /--layout must be flat or hive/,
    );
  });

  it('says clearly when the period has not been reconciled, and refuses a bad period or format', async () => {
    const never = await exportCli('--period', '2023-12', '--out', path.join(temp.dir, 'none'));
    expect(never.code).toBe(1);
    expect(never.stderr).toMatch(/The period 2023-12 has not been reconciled.*\n.*pinrecon reconcile --period 2023-12/);
    expect(existsSync(path.join(temp.dir, 'none'))).toBe(false);
    expect((await exportCli('--period', '2024-13')).code).toBe(2);
    expect((await exportCli('--period', '2024-03', '--format', 'xlsx')).stderr).toMatch(
      /--format must be parquet, csv or arrow/,
    );
    const warehouse = await openWarehouse({ ...config, database: path.join(temp.dir, 'empty.duckdb') });
    try {
      await expect(
        exportPeriod(
          warehouse,
          config,
          { period: '2024-03', format: 'csv', outDir: temp.dir },
          capturedOutput().output,
        ),
      ).rejects.toThrow(/has not been reconciled/);
    } finally {
      warehouse.close();
    }
  });

  it('exports from the snapshot while a job holds the database', async () => {
    const holder = await holdWriteLock(config.database);
    try {
      const out = path.join(temp.dir, 'busy');
      const result = await exportCli('--period', '2024-03', '--out', out);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).toMatch(/reading the snapshot .*pinrecon.snapshot.duckdb, published .* ago/);
      expect(await readBack(path.join(out, 'recon_exceptions-2024-03.parquet'))).toHaveLength(2);
    } finally {
      holder.kill();
      await new Promise((resolve) => holder.once('exit', resolve));
    }
  });
});
