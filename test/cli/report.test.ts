/**
 * `pinrecon report` as users and schedulers run it: prints the workbook's path, --json for machines, --dry-run's
 * .eml, exit 1 with why and what to do when the email cannot be sent (never printing the SMTP password). The first
 * case spawns the built CLI (its wiring); the others run the same command in this process, a spawn costing about a
 * CPU-second. Its options and their usage errors: test/commands/report.test.ts.
 */
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { Warehouse } from '../../core/warehouse.js';
import { createReportFixture, period, type ReportFixture } from '../support/report.js';
import { runCli, unusedPort } from '../support/cli.js';
import { runCommand } from '../support/cli-in-process.js';

/** As a scheduler runs it: not a terminal, no SMTP URL from the environment. */
const schedulerEnv = { CI: 'true', PINRECON_SMTP_URL: '' };
const pinrecon = (args: string[], cwd: string) => runCommand(args, { cwd, env: schedulerEnv });

describe('pinrecon report', () => {
  const password = 'smtp-secret-never-printed';
  let fixture: ReportFixture;
  let configFile: string;
  let workbook: string;

  beforeAll(async () => {
    fixture = await createReportFixture();
    // The CLI opens the database itself: release the fixture's lock.
    fixture.warehouse.close();
    configFile = path.join(fixture.dir, 'pinrecon.config.json');
    writeFileSync(
      configFile,
      JSON.stringify({
        timezone: fixture.config.timezone,
        database: 'pinrecon.duckdb',
        reports: { outDir: 'reports' },
        email: {
          smtpUrl: `smtp://reporter:${password}@127.0.0.1:${await unusedPort()}`,
          retries: 0,
          to: ['finance@example.com'],
        },
      }),
    );
    workbook = path.join(fixture.dir, 'reports', `pinrecon-${period}.xlsx`);
  });

  it('writes the workbook and prints its path', async () => {
    const result = await runCli(['report', '--period', period, '--config', configFile], {
      cwd: fixture.dir,
      env: schedulerEnv,
    });
    expect(result.stderr).not.toContain('error');
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe(workbook);
    expect(existsSync(workbook)).toBe(true);
  });

  it('--json prints one document with the workbook, sheets and counts', async () => {
    const result = await pinrecon(['report', '--period', period, '--json', '--config', configFile], fixture.dir);
    expect(result.code).toBe(0);
    const document = JSON.parse(result.stdout) as {
      ok: boolean;
      workbook: string;
      exceptions: number;
      sheets: { name: string }[];
    };
    expect(document).toMatchObject({ ok: true, workbook, exceptions: 9 });
    expect(document.sheets.map((s) => s.name)).toContain('Sales');
  });

  it('--email --dry-run writes the .eml beside the workbook and prints both paths', async () => {
    const eml = path.join(fixture.dir, 'reports', `pinrecon-${period}.eml`);
    const result = await pinrecon(
      ['report', '--period', period, '--email', '--dry-run', '--config', configFile],
      fixture.dir,
    );
    expect(result.code).toBe(0);
    expect(result.stdout.trim().split('\n')).toEqual([workbook, eml]);
    expect(existsSync(eml)).toBe(true);
  });

  it('exits 1 saying why and what to do when the email cannot be sent; the password is never printed', async () => {
    const result = await pinrecon(['report', '--period', period, '--email', '--config', configFile], fixture.dir);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      new RegExp(
        /error: Could not send the report email to finance@example.com via smtp:\/\/\*\*\*@127\.0\.0\.1:\d+ /.source +
          /\(attempt 1 of 1\)/.source,
      ),
    );
    expect(result.stderr).toContain(`what to do: The workbook is on disk at ${workbook}`);
    expect(result.stderr).not.toContain(password);
    expect(existsSync(workbook)).toBe(true);
    const warehouse = await Warehouse.open(path.join(fixture.dir, 'pinrecon.duckdb'), { readOnly: true });
    try {
      const run = await warehouse.one(
        `SELECT status, error FROM pipeline_runs WHERE command = 'report' ORDER BY started_at DESC LIMIT 1`,
      );
      expect(run).toMatchObject({ status: 'failed' });
      expect(String(run!.error)).not.toContain(password);
    } finally {
      warehouse.close();
    }
  });
});
