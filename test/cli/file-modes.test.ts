/**
 * Item 1 of issue 8: everything pinrecon writes is private to its owner (files 0600, folders 0700) whatever
 * the caller's umask, and files it owns that others could read (written before) are fixed with a warning.
 */
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';

const mode = (file: string) => statSync(file).mode & 0o777;

/** Every file and folder under `root`, with its mode. */
function modesUnder(root: string): { path: string; folder: boolean; mode: number }[] {
  return readdirSync(root, { withFileTypes: true, recursive: true }).map((entry) => {
    const file = path.join(entry.parentPath, entry.name);
    return { path: file, folder: entry.isDirectory(), mode: mode(file) };
  });
}

describe('file modes', () => {
  beforeAll(() => {
    // The usual umask of a login shell: without pinrecon's own, new files would be world-readable.
    process.umask(0o022);
  });

  it('creates the database, its snapshot and their folder private, and makes older loose files it owns private', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'pinrecon-modes-'));
    chmodSync(dir, 0o755);
    const landing = path.join(dir, 'landing', 'sales', '2026-01');
    mkdirSync(landing, { recursive: true });
    const oldLanding = path.join(landing, 'paid_2026-01-01_2026-01-31_old.json.gz');
    writeFileSync(oldLanding, 'old answer', { mode: 0o644 });
    const reports = path.join(dir, 'reports');
    mkdirSync(reports);
    const oldWorkbook = path.join(reports, 'pinrecon-2026-01.xlsx');
    writeFileSync(oldWorkbook, 'old workbook', { mode: 0o644 });
    const notOurs = path.join(reports, 'budget.txt');
    writeFileSync(notOurs, 'someone else', { mode: 0o644 });
    const ledger = path.join(dir, 'ledger.csv');
    writeFileSync(
      ledger,
      'partner_reference,product_id,paid_at,sales_price,expected_cost,currency_code,country_code,order_status\nPO-1,10,2026-01-05,10.00,8.00,BRL,BR,paid\n',
    );
    const config = path.join(dir, 'pinrecon.config.json');
    writeFileSync(
      config,
      JSON.stringify({
        database: 'data/pinrecon.duckdb',
        extract: { landingDir: 'landing' },
        reports: { outDir: 'reports' },
      }),
    );

    const { code, stderr } = await runCli(['ledger', 'import', ledger, '--config', config], { cwd: dir });
    expect(code, stderr).toBe(0);

    // New: the database, its snapshot and the folder made for them.
    expect(mode(path.join(dir, 'data'))).toBe(0o700);
    expect(mode(path.join(dir, 'data', 'pinrecon.duckdb'))).toBe(0o600);
    expect(mode(path.join(dir, 'data', 'pinrecon.snapshot.duckdb'))).toBe(0o600);
    // Old and loose: fixed, each named with the mode it had.
    for (const [file, was, now] of [
      [oldLanding, '0644', 0o600],
      [landing, '0755', 0o700],
      [path.join(dir, 'landing'), '0755', 0o700],
      [oldWorkbook, '0644', 0o600],
    ] as const) {
      expect(mode(file), file).toBe(now);
      expect(stderr).toContain(`${file} was readable by others (mode ${was})`);
    }
    // Not pinrecon's: left as it was.
    expect(mode(notOurs)).toBe(0o644);
    expect(stderr).not.toContain('budget.txt');

    // A second run finds nothing to fix and says nothing about modes.
    const again = await runCli(['ledger', 'import', ledger, '--config', config], { cwd: dir });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).not.toContain('readable by others');
    for (const entry of modesUnder(path.join(dir, 'data')))
      expect(entry.mode, entry.path).toBe(entry.folder ? 0o700 : 0o600);
  });
});
