/**
 * Issue 18 item 4: a reference holding terminal escapes (`PO-ESC\x1b[31mRED\x1b]0;pwned\x07-X2`: a colour and
 * an OSC that retitles the terminal), a NUL and a C1 CSI comes out of `findings list` (table, csv, json) and
 * `query` without a raw control character; the JSON still reads back to the same text. Through the built CLI.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import {
  asOf,
  insertLedger,
  insertSales,
  ledgerFor,
  openFixture,
  period,
  sale,
  type Fixture,
} from '../support/reconcile.js';

const hostileSale = 'PO-ESC\x1b[31mRED\x1b]0;pwned\x07-X2';
const hostileLedger = 'PO-NUL\x00\x9b2J-X3';
/** A control character a terminal may act on: C0 but tab and newline, DEL, C1. */
const rawControl = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;

describe('printing hostile references', () => {
  let f: Fixture;
  const pinrecon = (args: string[]) => runCli(args, { cwd: f.dir, env: { CI: 'true', PINRECON_SMTP_URL: '' } });

  beforeAll(async () => {
    f = await openFixture();
    // A provider sale the ledger lacks, and a ledger order the provider lacks: two findings with those references.
    await insertSales(f.warehouse, [sale({ partner_reference: hostileSale })]);
    await insertLedger(f.warehouse, [ledgerFor(sale({ partner_reference: hostileLedger }))]);
    f.warehouse.close();
    writeFileSync(
      path.join(f.dir, 'pinrecon.config.json'),
      JSON.stringify({
        timezone: f.config.timezone,
        database: 'pinrecon.duckdb',
        reconciliation: { lookupMissing: false },
      }),
    );
    const reconciled = await pinrecon(['reconcile', '--period', period, '--as-of', asOf]);
    expect(reconciled.code, reconciled.stderr).toBe(0);
  });
  afterAll(() => f?.cleanup());

  it.each(['table', 'csv'])('findings list --format %s prints no raw control character', async (format) => {
    const listed = await pinrecon(['findings', 'list', '--period', period, '--format', format]);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).not.toMatch(rawControl);
    expect(listed.stdout).toContain('PO-ESCRED-X2');
    expect(listed.stdout).toContain('PO-NUL-X3');
    expect(listed.stdout).not.toContain('pwned');
  });

  it('findings list --format json escapes them, and reads back to the stored text', async () => {
    const listed = await pinrecon(['findings', 'list', '--period', period, '--format', 'json']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).not.toMatch(rawControl);
    const references = (JSON.parse(listed.stdout) as { partner_reference: string }[])
      .map((r) => r.partner_reference)
      .sort();
    expect(references).toEqual([hostileLedger, hostileSale].sort());
  });

  it.each(['table', 'csv', 'json'])('query --format %s prints no raw control character', async (format) => {
    const queried = await pinrecon([
      'query',
      'SELECT partner_reference FROM recon_exceptions ORDER BY 1',
      '--format',
      format,
    ]);
    expect(queried.code, queried.stderr).toBe(0);
    expect(queried.stdout).not.toMatch(rawControl);
    expect(queried.stdout).toContain('PO-ESC');
  });
});
