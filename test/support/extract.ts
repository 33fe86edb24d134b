/** Shared by the extract tests: a quiet Output that keeps what it printed, configs, and table snapshots. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { ConsoleOutput } from '../../cli/output.js';
import { configSchema, type Config } from '../../config/schema.js';
import type { Warehouse } from '../../core/warehouse.js';

export const identifier = 'extract-test-partner';
export const secret = 'extract-test-secret-6c1f0b';

/** An Output (plain lines, or a terminal's progress bar) whose stdout and stderr are kept as text. */
export function capturedOutput(terminal = false): { output: Output; text: () => string } {
  let text = '';
  const stream = () => {
    const s = new PassThrough();
    s.on('data', (chunk: Buffer) => (text += chunk.toString()));
    return s as unknown as NodeJS.WriteStream;
  };
  return { output: new ConsoleOutput(false, stream(), stream(), terminal), text: () => text };
}

export function tempDir(name: string): string {
  return mkdtempSync(path.join(tmpdir(), `pinrecon-${name}-`));
}

export function extractConfig(
  dir: string,
  baseUrl: string,
  overrides: { api?: Record<string, unknown>; extract?: Record<string, unknown> } = {},
): Config {
  return configSchema.parse({
    database: path.join(dir, 'pinrecon.duckdb'),
    timezone: 'America/Sao_Paulo',
    api: { baseUrl, identifier, secret, maxRequestsPerSecond: 40, ...overrides.api },
    extract: { ...overrides.extract },
  });
}

/**
 * The `sales` table without what legitimately differs between runs (fetch times, run ids) and between
 * databases (the key HMAC under each database's own secret, and the record hash of JSON that holds it).
 */
export async function salesState(warehouse: Warehouse) {
  return warehouse.all(
    `SELECT * EXCLUDE (first_seen_at, last_seen_at, last_run_id, key_hmac, record_hash)
     REPLACE (transaction_at::VARCHAR AS transaction_at)
     FROM sales ORDER BY transaction_id`,
  );
}

/** Quarantine and history, without run ids, paths with run ids, and times. */
export async function sideTablesState(warehouse: Warehouse) {
  return {
    quarantine: await warehouse.all(
      `SELECT window_start::VARCHAR AS window_start, by_flag, record_index, transaction_id, reason, raw FROM ` +
        `sales_quarantine ORDER BY ALL`,
    ),
    history: await warehouse.all(
      `SELECT transaction_id, status, previous_status FROM sales_status_history ORDER BY ALL`,
    ),
    windows: await warehouse.all(
      `SELECT window_start::VARCHAR AS s, window_end::VARCHAR AS e, by_flag, records, quarantined FROM ` +
        `extract_windows ORDER BY ALL`,
    ),
  };
}

/**
 * A sale as the upstream sends it, written as raw JSON text so the number digits are exactly ours (the loader's
 * tests); a field overridden with '' is left out.
 */
export function saleJson(id: number, overrides: Record<string, string> = {}): string {
  const fields: Record<string, string> = {
    transactionId: String(id),
    partnerReference: `"PO-${id}"`,
    salesPrice: '19.90',
    partnerCostPrice: '17.5125',
    productId: '42',
    productName: '"Game Credits 20"',
    status: '"Redeemed by Client"',
    transactionDate: '"2026-01-15T10:20:30-03:00"',
    countryCode: '"BR"',
    salesCurrencyCode: '"BRL"',
    salesCurrencySymbol: '"R$"',
    key: `"PIN-SECRET-${id}"`,
    keySentToCustomer: 'true',
    ...overrides,
  };
  return `{${Object.entries(fields)
    .filter(([, v]) => v !== '')
    .map(([k, v]) => `"${k}": ${v}`)
    .join(', ')}}`;
}
