/**
 * `pinrecon query --format arrow` and `export --format arrow` as users run them: the bytes on stdout (or
 * the .arrow file) read back with apache-arrow as an analyst's tool would, and compared value by value:
 * decimals exact with DuckDB's precision and scale, TIMESTAMPTZ as the same instant with the configured
 * zone, dates as dates, nulls as nulls, PINs only as their last 4 characters, many batches in order.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { tableFromIPC, util, type Decimal, type Table } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishSnapshot } from '../../core/warehouse.js';
import { startCli } from '../support/cli.js';
import { openWarehouse, temporaryDirectory, testConfig } from '../support/ledger.js';

const temp = temporaryDirectory('query-arrow');
const config = testConfig(temp.dir);
config.timezone = 'America/Sao_Paulo';
const configFile = path.join(temp.dir, 'pinrecon.config.json');

/** Runs `pinrecon <args>` and keeps stdout as bytes (an Arrow stream is binary). */
async function runBinary(args: string[]): Promise<{ code: number | null; stdout: Buffer; stderr: string }> {
  const running = startCli([...args, '--config', configFile]);
  const chunks: Buffer[] = [];
  running.child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
  const result = await running.done;
  return { code: result.code, stdout: Buffer.concat(chunks), stderr: result.stderr };
}

async function queryArrow(sql: string): Promise<Table> {
  const result = await runBinary(['query', sql, '--format', 'arrow']);
  expect(result.code, result.stderr).toBe(0);
  return tableFromIPC(result.stdout);
}

/** A Decimal cell as exact text, from its unscaled 128-bit value and the column's scale. */
function decimalText(table: Table, column: string, row: number): string | null {
  const vector = table.getChild(column)!;
  const value = vector.get(row) as Uint32Array | null;
  if (value === null) return null;
  const scale = (vector.type as Decimal).scale;
  const unscaled = util.bigNumToBigInt(value as never);
  const digits = (unscaled < 0n ? -unscaled : unscaled).toString().padStart(scale + 1, '0');
  return `${unscaled < 0n ? '-' : ''}${digits.slice(0, digits.length - scale)}.${digits.slice(digits.length - scale)}`;
}

beforeAll(async () => {
  writeFileSync(
    configFile,
    JSON.stringify({
      database: config.database,
      timezone: config.timezone,
      reports: { outDir: path.join(temp.dir, 'reports') },
    }),
  );
  const warehouse = await openWarehouse(config);
  try {
    await warehouse.run(`INSERT INTO sales (transaction_id, partner_reference, product_id, sales_price,
        partner_cost_price, status, key, key_sent_to_customer, first_seen_at, last_seen_at)
      VALUES (1, 'R-1', 10, 12.5, 10.0001, 'Redeemed by Client', 'ABCD-EFGH-1234', true,
                TIMESTAMPTZ '2026-10-31 23:30:00.123456-03', now()),
             (2, 'R-2', 11, -7, 99999999999999.9999, 'delivered', 'WXYZ-9876', false,
                TIMESTAMPTZ '2026-11-01 02:30:00Z', now()),
             (3, 'R-3', 12, NULL, 1, 'delivered', NULL, false, TIMESTAMPTZ '2026-11-01 03:00:00Z', now())`);
    await warehouse.run(`ALTER TABLE recon_exceptions ADD COLUMN IF NOT EXISTS key VARCHAR`);
    await warehouse.run(
      `INSERT INTO recon_exceptions (period, finding_id, exception_type, family, partner_reference, transaction_id,
         ledger_value, provider_value, difference,
         currency_code, details, first_detected_at, key_last4, amount, as_of, built_at, run_id, key)
       VALUES ('2026-10', 'f1', 'cost_mismatch', 'amounts', 'R-1', 1, 10.0001, 10.5, 0.4999, 'BRL',
         'pin abcd-efgh-1234 differs', TIMESTAMPTZ '2026-11-02 10:00:00Z', '1234', 0.4999, '2026-11-05', now(), 'r',
         'SECRET-PIN-1234')`,
    );
    await warehouse.run(
      `INSERT INTO recon_runs (run_id, period, as_of, built_at, exceptions, new, still_open, cleared) VALUES ('r', ` +
        `'2026-10', '2026-11-05', now(), 1, 1, 0, 0)`,
    );
    await publishSnapshot(warehouse);
  } finally {
    warehouse.close();
  }
});
afterAll(() => temp.remove());

describe('pinrecon query --format arrow', () => {
  it('streams exact decimals, zoned instants, dates, nulls and masked PINs', async () => {
    const table = await queryArrow(
      `SELECT transaction_id, sales_price, partner_cost_price, key, first_seen_at, first_seen_at::DATE AS seen_on,
              partner_reference,
              'ABCD-EFGH-1234' AS note, {'key': key, 'n': 1} AS s
       FROM sales ORDER BY transaction_id`,
    );
    expect(table.numRows).toBe(3);
    expect(table.schema.fields.map((f) => `${f.name}: ${f.type}`)).toEqual([
      'transaction_id: Int64',
      'sales_price: Decimal[18e+4]',
      'partner_cost_price: Decimal[18e+4]',
      'key: Utf8',
      'first_seen_at: Timestamp<MICROSECOND, America/Sao_Paulo>',
      'seen_on: Date32<DAY>',
      'partner_reference: Utf8',
      'note: Utf8',
      's: Utf8',
    ]);
    expect([0, 1, 2].map((row) => decimalText(table, 'sales_price', row))).toEqual(['12.5000', '-7.0000', null]);
    expect([0, 1, 2].map((row) => decimalText(table, 'partner_cost_price', row))).toEqual([
      '10.0001',
      '99999999999999.9999',
      '1.0000',
    ]);
    expect(table.getChild('transaction_id')!.toArray()).toEqual(new BigInt64Array([1n, 2n, 3n]));
    // The instant to the microsecond (UTC, as Arrow stores it), whatever zone it was written in.
    expect(Array.from(table.getChild('first_seen_at')!.data[0]!.values as BigInt64Array)).toEqual([
      BigInt(Date.UTC(2026, 10, 1, 2, 30)) * 1000n + 123456n,
      BigInt(Date.UTC(2026, 10, 1, 2, 30)) * 1000n,
      BigInt(Date.UTC(2026, 10, 1, 3, 0)) * 1000n,
    ]);
    // Dates in the session's zone: 23:30 on Oct 31 in São Paulo is still Oct 31 there.
    expect(
      [0, 1, 2].map((row) => new Date(table.getChild('seen_on')!.get(row) as number).toISOString().slice(0, 10)),
    ).toEqual(['2026-10-31', '2026-10-31', '2026-11-01']);
    expect(table.getChild('key')!.toArray()).toEqual(['****1234', '****9876', null]);
    expect(table.getChild('note')!.get(0)).toBe('****1234');
    expect(table.getChild('s')!.get(0)).toBe('{"key":"****1234","n":1}');
    expect(table.getChild('partner_reference')!.toArray()).toEqual(['R-1', 'R-2', 'R-3']);
  });

  it('streams a large result in several batches, every row in order, and an empty result with its schema', async () => {
    const table = await queryArrow(
      `SELECT range AS n, (range / 100)::DECIMAL(12,2) AS amount FROM range(150000) ORDER BY n`,
    );
    expect(table.batches.length).toBeGreaterThan(1);
    expect(table.numRows).toBe(150_000);
    const n = table.getChild('n')!;
    expect([n.get(0), n.get(149_999)]).toEqual([0n, 149_999n]);
    expect(decimalText(table, 'amount', 149_999)).toBe('1499.99');
    const empty = await queryArrow(`SELECT key, sales_price FROM sales WHERE false`);
    expect(empty.numRows).toBe(0);
    expect(empty.schema.fields.map((f) => `${f.name}: ${f.type}`)).toEqual([
      'key: Utf8',
      'sales_price: Decimal[18e+4]',
    ]);
  });

  it('refuses writes as the other formats do', async () => {
    const result = await runBinary(['query', 'DELETE FROM sales', '--format', 'arrow']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/only reads/);
    expect(result.stdout.length).toBe(0);
  });
});

describe('pinrecon export --format arrow', () => {
  it('writes one .arrow IPC file per mart, exact decimals, zoned timestamps, no PIN whole', async () => {
    const out = path.join(temp.dir, 'arrow');
    const result = await runBinary(['export', '--period', '2026-10', '--format', 'arrow', '--out', out]);
    expect(result.code, result.stderr).toBe(0);
    // The period's marts, and its decisions' audit trail (recon_decisions, issue 14); since issue 31 item 7 also
    // the tables beside them: actions and their events, roll-forward, suggested matches, carried forward.
    expect(readdirSync(out).sort()).toEqual([
      'recon_action_events-2026-10.arrow',
      'recon_actions-2026-10.arrow',
      'recon_aging-2026-10.arrow',
      'recon_bridge-2026-10.arrow',
      'recon_carried_forward-2026-10.arrow',
      'recon_decisions-2026-10.arrow',
      'recon_exceptions-2026-10.arrow',
      'recon_match_suggestions-2026-10.arrow',
      'recon_roll_forward-2026-10.arrow',
      'recon_summary-2026-10.arrow',
    ]);
    const findings = tableFromIPC(readFileSync(path.join(out, 'recon_exceptions-2026-10.arrow')));
    expect(findings.numRows).toBe(1);
    expect(decimalText(findings, 'ledger_value', 0)).toBe('10.0001');
    expect(decimalText(findings, 'difference', 0)).toBe('0.4999');
    expect(findings.getChild('key')!.get(0)).toBe('****1234');
    expect(findings.getChild('key_last4')!.get(0)).toBe('1234');
    expect(String(findings.schema.fields.find((f) => f.name === 'first_detected_at')!.type)).toBe(
      'Timestamp<MICROSECOND, America/Sao_Paulo>',
    );
    expect(findings.getChild('first_detected_at')!.get(0)).toBe(Date.UTC(2026, 10, 2, 10));
    const bytes = readFileSync(path.join(out, 'recon_exceptions-2026-10.arrow'));
    expect(bytes.includes('SECRET-PIN')).toBe(false);
    expect(tableFromIPC(readFileSync(path.join(out, 'recon_aging-2026-10.arrow'))).numRows).toBe(0);
  });
});
