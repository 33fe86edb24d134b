/**
 * Suggested matches through the built CLI (issue 29): `matches list`, `confirm` and `reject` (a reject needs its
 * note), the workbook's Suggested matches sheet typed and read back by `findings import` (through LibreOffice when
 * this machine has it), the next reconcile matching the confirmed pairs, `findings list` naming their differences,
 * a signed-off period refusing a confirmation (exit 1) and `verify` covering the match decisions.
 *
 * Each command the file is about is spawned once (its wiring, exit code and console from a real process); the
 * other runs, and the steps around them (reconcile, report, findings list, close), run in this process.
 */
import { copyFileSync } from 'node:fs';
import path from 'node:path';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { runCommand } from '../support/cli-in-process.js';
import { convertWithSoffice, hasSoffice } from '../support/decisions.js';
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
import { rmSync, writeFileSync } from 'node:fs';
import { createKeyPair } from '../../core/signatures.js';
import { Warehouse } from '../../core/warehouse.js';

const env = { CI: 'true', PINRECON_SMTP_URL: '' };
/** Spawns the built CLI. */
const pinrecon = (cwd: string, ...args: string[]) => runCli(args, { cwd, env });
/** The same command in this process. */
const inProcess = (cwd: string, ...args: string[]) => runCommand(args, { cwd, env });

interface Listed {
  suggestion_id: string;
  ledger_reference: string;
  provider_reference: string;
  score: number;
  rank: number | null;
  status: string;
  decided_by: string | null;
  note: string | null;
}

/** Types `decision` and `note` into the Suggested matches row of `suggestionId`, saving the workbook as `target`. */
async function typeMatchDecision(source: string, target: string, suggestionId: string, decision: string, note: string) {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.readFile(source);
  const sheet = workbook.getWorksheet('Suggested matches')!;
  const columns: Record<string, number> = {};
  sheet.getRow(1).eachCell((cell, column) => {
    columns[String(cell.value)] = column;
  });
  let typed = 0;
  sheet.eachRow((row, number) => {
    if (number === 1 || row.getCell(columns['Suggestion ID']!).value !== suggestionId) return;
    row.getCell(columns.Decision!).value = decision;
    row.getCell(columns.Note!).value = note;
    typed++;
  });
  expect(typed).toBe(1);
  await workbook.xlsx.writeFile(target);
}

describe('pinrecon matches', () => {
  let f: Fixture;
  let cwd: string;
  const listed = (result: { code: number | null; stdout: string; stderr: string }): Listed[] => {
    expect(result.code, result.stderr).toBe(0);
    return JSON.parse(result.stdout) as Listed[];
  };
  const list = async (...extra: string[]) =>
    listed(await inProcess(cwd, 'matches', 'list', '--period', period, '--format', 'json', ...extra));
  const byLedger = (rows: Listed[], reference: string) => rows.find((r) => r.ledger_reference === reference)!;

  beforeAll(async () => {
    f = await openFixture();
    const sales = [
      sale({ partner_reference: 'PO-2026-0009401', product_id: 11, transaction_at: '2024-03-05T12:00:00-03:00' }),
      sale({ partner_reference: 'PO-2026-0009601', product_id: 12, transaction_at: '2024-03-12T12:00:00-03:00' }),
      sale({
        partner_reference: 'PO-2026-0009701',
        product_id: 13,
        partner_cost_price: '8.40',
        transaction_at: '2024-03-19T12:00:00-03:00',
      }),
    ];
    await insertSales(f.warehouse, sales);
    await insertLedger(f.warehouse, [
      ledgerFor(sales[0]!, { partner_reference: 'PO-2026-009401' }),
      ledgerFor(sales[1]!, { partner_reference: 'po-2026-0009601' }),
      ledgerFor(sales[2]!, { partner_reference: 'PO-2026-O009701', expected_cost: '8.00' }),
    ]);
    f.warehouse.close(); // the CLI opens the database itself
    cwd = f.dir;
    writeFileSync(
      path.join(cwd, 'pinrecon.config.json'),
      JSON.stringify({
        timezone: f.config.timezone,
        database: 'pinrecon.duckdb',
        reports: { outDir: 'reports' },
        reconciliation: { costTolerance: 0.01, unredeemedAfterDays: 3, lookupMissing: false },
      }),
    );
    const reconciled = await inProcess(cwd, 'reconcile', '--period', period, '--as-of', asOf);
    expect(reconciled.code, reconciled.stderr).toBe(0);
  }, 120_000);

  afterAll(() => rmSync(cwd, { recursive: true, force: true }));

  it('lists, confirms, rejects, imports the workbook, matches, refuses after sign-off, verifies', async () => {
    const proposed = listed(await pinrecon(cwd, 'matches', 'list', '--period', period, '--format', 'json'));
    expect(proposed.map((r) => [r.ledger_reference, r.status, r.rank]).sort()).toEqual([
      ['PO-2026-009401', 'proposed', 1],
      ['PO-2026-O009701', 'proposed', 1],
      ['po-2026-0009601', 'proposed', 1],
    ]);
    const leadingZero = byLedger(proposed, 'PO-2026-009401');
    const lowerCase = byLedger(proposed, 'po-2026-0009601');
    const letterO = byLedger(proposed, 'PO-2026-O009701');

    const confirmed = await pinrecon(cwd, 'matches', 'confirm', leadingZero.suggestion_id, '--by', 'Ana Lima');
    expect(confirmed.code, confirmed.stderr).toBe(0);
    expect(confirmed.stdout).toContain('recorded 1 match decision(s) by Ana Lima');
    const noNote = await inProcess(cwd, 'matches', 'reject', lowerCase.suggestion_id, '--by', 'Ana Lima');
    expect(noNote.code).toBe(2);
    expect(noNote.stderr).toContain('matches reject needs --note');
    const unknown = await inProcess(cwd, 'matches', 'confirm', 'not-a-suggestion', '--by', 'Ana Lima');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no suggested match not-a-suggestion');
    const rejected = await pinrecon(
      cwd,
      ...['matches', 'reject', lowerCase.suggestion_id, '--note', 'another customer', '--by', 'Ana Lima'],
    );
    expect(rejected.code, rejected.stderr).toBe(0);
    expect((await list('--status', 'rejected')).map((r) => [r.suggestion_id, r.note])).toEqual([
      [lowerCase.suggestion_id, 'another customer'],
    ]);

    // The third through the workbook: typed into its Suggested matches sheet, saved by LibreOffice when present.
    expect((await inProcess(cwd, 'report', '--period', period)).code).toBe(0);
    const written = path.join(cwd, 'reports', `pinrecon-${period}.xlsx`);
    const typed = path.join(cwd, 'typed.xlsx');
    await typeMatchDecision(written, typed, letterO.suggestion_id, 'confirm', 'letter O typed for a zero');
    let imported = typed;
    if (hasSoffice()) {
      const saved = await convertWithSoffice(typed, path.join(cwd, 'soffice'), 'xlsx');
      imported = path.join(cwd, 'saved-by-libreoffice.xlsx');
      copyFileSync(saved, imported);
    }
    const importRun = await pinrecon(cwd, 'findings', 'import', imported, '--by', 'Bruno Costa');
    expect(importRun.code, importRun.stderr).toBe(0);
    expect(importRun.stderr + importRun.stdout).toContain('recorded 1 match decision(s) by Bruno Costa');
    expect(byLedger(await list(), 'PO-2026-O009701')).toMatchObject({ status: 'confirmed', decided_by: 'Bruno Costa' });

    // From the next reconcile the two confirmed pairs are matched; the rejected one stays two missing findings.
    const rerun = await inProcess(cwd, 'reconcile', '--period', period, '--as-of', asOf);
    expect(rerun.code, rerun.stderr).toBe(0);
    const findings = await inProcess(cwd, 'findings', 'list', '--period', period, '--format', 'json');
    const rows = JSON.parse(findings.stdout) as {
      exception_type: string;
      partner_reference: string;
      differences: string;
    }[];
    expect(rows.map((r) => `${r.exception_type} ${r.partner_reference}`).sort()).toEqual([
      'cost_mismatch PO-2026-O009701',
      'missing_at_provider po-2026-0009601',
      'missing_in_ledger PO-2026-0009601',
      'reference_mismatch PO-2026-009401',
      'reference_mismatch PO-2026-O009701',
    ]);
    const costBreak = rows.find((r) => r.exception_type === 'cost_mismatch')!;
    expect(costBreak.differences).toBe('reference PO-2026-O009701 → PO-2026-0009701; cost 8.00 → 8.40');
    expect((await list('--status', 'proposed')).length).toBe(0);

    // Signed off: a confirmation is refused, changing nothing; verify covers the match decisions.
    const close = await inProcess(cwd, 'close', '--period', period, '--by', 'Ana Lima', '--allow-undecided');
    expect(close.code, close.stderr).toBe(0);
    const refused = await inProcess(cwd, 'matches', 'confirm', lowerCase.suggestion_id, '--by', 'Ana Lima');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`matches confirm changed nothing: ${period} is signed off`);
    expect(byLedger(await list(), 'po-2026-0009601').status).toBe('rejected');
    const verified = await pinrecon(cwd, 'verify', '--period', period, '--json');
    expect(verified.code, verified.stdout + verified.stderr).toBe(0);
    expect((JSON.parse(verified.stdout) as { decisions: number }).decisions).toBe(3);
  }, 300_000);
});

describe('pinrecon matches with people configured (in-process)', () => {
  it('needs a registered key to confirm, and signs the decision row with it; verify checks the signature', async () => {
    const f = await openFixture();
    const s = sale({ partner_reference: 'PO-2026-0009401' });
    await insertSales(f.warehouse, [s]);
    await insertLedger(f.warehouse, [ledgerFor(s, { partner_reference: 'po-2026-0009401' })]);
    f.warehouse.close();
    const cwd = f.dir;
    const ana = createKeyPair();
    const key = path.join(cwd, 'ana.pem');
    writeFileSync(key, ana.privatePem, { mode: 0o600 });
    writeFileSync(
      path.join(cwd, 'pinrecon.config.json'),
      JSON.stringify({
        timezone: f.config.timezone,
        database: 'pinrecon.duckdb',
        reconciliation: { lookupMissing: false },
        people: [{ name: 'Ana Lima', publicKey: ana.publicPem, roles: ['preparer'] }],
      }),
    );
    try {
      expect((await inProcess(cwd, 'reconcile', '--period', period, '--as-of', asOf)).code).toBe(0);
      const listed = await inProcess(cwd, 'matches', 'list', '--period', period, '--json');
      const [suggestion] = JSON.parse(listed.stdout) as Listed[];
      const unproven = await inProcess(cwd, 'matches', 'confirm', suggestion!.suggestion_id, '--by', 'Ana Lima');
      expect(unproven.code).toBe(2);
      expect(unproven.stderr).toContain('needs --identity FILE');
      const signed = await inProcess(cwd, 'matches', 'confirm', suggestion!.suggestion_id, '--identity', key);
      expect(signed.code, signed.stderr).toBe(0);
      expect(signed.stdout).toContain('by Ana Lima');
      const verified = await inProcess(cwd, 'verify', '--period', period, '--json');
      expect(verified.code, verified.stdout + verified.stderr).toBe(0);
      const w = await Warehouse.open(path.join(cwd, 'pinrecon.duckdb'), { readOnly: true });
      try {
        const rows = await w.all<{ decision: string; decided_by: string; signature: string | null; signer: string }>(
          'SELECT decision, decided_by, signature, signer_key_sha256 AS signer FROM recon_decisions',
        );
        expect(rows).toHaveLength(1);
        expect(rows[0]).toMatchObject({ decision: 'match_confirmed', decided_by: 'Ana Lima', signer: ana.fingerprint });
        expect(rows[0]!.signature).toMatch(/^[A-Za-z0-9+/]+=*$/);
      } finally {
        w.close();
      }
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  }, 120_000);
});
