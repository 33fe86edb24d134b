import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { simpleParser } from 'mailparser';
import { describe, expect, it } from 'vitest';
import { Warehouse } from '../../core/warehouse.js';
import { runCli } from '../support/cli.js';

/** The environment of a new user: no pinrecon variables (set to undefined: left out), not a terminal. */
function cleanEnvironment(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.keys(process.env).filter((name) => name.startsWith('PINRECON_')).map((name) => [name, undefined]));
}

describe('pinrecon demo, as a new user runs it', () => {
  it('runs the month-end job on the embedded default and says where everything went', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'pinrecon-demo-'));
    const started = Date.now();
    const { code, stdout, stderr } = await runCli(['demo'], { cwd: dir, env: cleanEnvironment() });
    const seconds = (Date.now() - started) / 1000;
    expect(code, stderr).toBe(0);
    expect(seconds).toBeLessThan(60);

    const out = path.join(dir, 'demo-output');
    const database = path.join(out, 'pinrecon.duckdb');
    const period = /Findings for (\d{4}-\d{2})/.exec(stdout)?.[1];
    expect(period).toBeDefined();
    const workbook = path.join(out, 'reports', `pinrecon-${period}.xlsx`);
    const eml = path.join(out, 'mail', '001.eml');
    for (const file of [database, workbook, eml, path.join(out, 'ledger.csv'), path.join(out, 'pinrecon.snapshot.duckdb')]) {
      expect(existsSync(file), file).toBe(true);
      expect(stdout).toContain(file);
    }
    for (const step of ['extract', 'ledger import', 'reconcile', 'report + email']) expect(stdout).toMatch(new RegExp(`${step.replace('+', '\\+')}\\s+succeeded`));

    // The email arrived with the workbook intact and the headline numbers in its body.
    const mail = await simpleParser(readFileSync(eml));
    const attachment = mail.attachments.find((a) => a.filename === `pinrecon-${period}.xlsx`);
    expect(attachment?.content.equals(readFileSync(workbook))).toBe(true);

    const warehouse = await Warehouse.open(database, { readOnly: true });
    try {
      // The printed findings are the database's.
      const byType = await warehouse.all<{ exception_type: string; n: number }>(
        `select exception_type, count(*)::INTEGER as n from recon_exceptions where period = $1 group by 1`,
        [period!],
      );
      expect(byType.length).toBeGreaterThanOrEqual(10);
      for (const row of byType) expect(stdout).toMatch(new RegExp(`${row.exception_type}\\s+${row.n}\\b`));
      expect(mail.text).toContain(String(byType.find((r) => r.exception_type === 'unredeemed_key')?.n));

      // Every step is recorded and succeeded.
      const runs = await warehouse.all<{ command: string; status: string }>(`select command, status from pipeline_runs order by started_at`);
      expect(runs.map((r) => r.command)).toEqual(expect.arrayContaining(['run', 'extract', 'ledger import', 'reconcile', 'report']));
      expect(runs.every((r) => r.status === 'succeeded')).toBe(true);

      // No whole PIN in what the demo printed or mailed.
      const keys = await warehouse.all<{ key: string }>(`select key from sales where key is not null`);
      expect(keys.length).toBeGreaterThan(1000);
      const raw = readFileSync(eml, 'utf8');
      const printed = stdout + stderr;
      for (const { key } of keys) {
        if (printed.includes(key) || raw.includes(key)) throw new Error(`a whole PIN ending ${key.slice(-4)} left the database`);
      }
    } finally {
      warehouse.close();
    }
  }, 120_000);
});
