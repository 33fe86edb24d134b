import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { ConfigError } from '../../core/errors.js';
import { configSchema } from '../../config/schema.js';
import { jobArguments, validateSchedules } from '../../pipelines/ops/schedule.js';
import { Warehouse } from '../../core/warehouse.js';
import { startCli, unusedPort } from '../support/cli.js';
import { recordExtractedMonths } from '../support/reconcile.js';

describe('schedule: job arguments', () => {
  const schedule = (over: Record<string, unknown>) =>
    configSchema.parse({ schedules: [{ name: 'x', cron: '0 6 1 * *', job: 'run', ...over }] }).schedules[0]!;

  it('resolves "previous" in the configured time zone at fire time', () => {
    // 02:00 UTC on 1 March is still 28 February in São Paulo: the previous period is January.
    const firedAt = new Date('2026-03-01T02:00:00Z');
    expect(jobArguments(schedule({ period: 'previous', email: true }), 'America/Sao_Paulo', firedAt)).toEqual([
      'run',
      '--period',
      '2026-01',
      '--email',
    ]);
    expect(jobArguments(schedule({ period: 'previous' }), 'UTC', firedAt)).toEqual(['run', '--period', '2026-02']);
  });

  it('extracts the current period only up to today', () => {
    const firedAt = new Date('2026-11-22T12:00:00Z');
    expect(jobArguments(schedule({ job: 'extract', period: 'current' }), 'America/Sao_Paulo', firedAt)).toEqual([
      'extract',
      '--from',
      '2026-11-01',
      '--to',
      '2026-11-22',
    ]);
    expect(jobArguments(schedule({ job: 'report', period: '2026-10', email: true }), 'UTC', firedAt)).toEqual([
      'report',
      '--period',
      '2026-10',
      '--email',
    ]);
  });

  it('names the schedule whose cron expression is broken', () => {
    const config = configSchema.parse({
      schedules: [
        { name: 'ok', cron: '0 6 1 * *', job: 'run' },
        { name: 'bad', cron: '61 * * * *', job: 'run' },
      ],
    });
    expect(() => validateSchedules(config)).toThrow(ConfigError);
    expect(() => validateSchedules(config, '/etc/pinrecon.json')).toThrow(
      /^\/etc\/pinrecon\.json: schedules\.1\.cron: "61 \* \* \* \*" is not a cron expression/,
    );
  });
});

describe('pinrecon schedule (spawned)', () => {
  it('runs jobs one at a time, survives a failed job, and stops cleanly on SIGTERM', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'pinrecon-schedule-'));
    const configFile = path.join(dir, 'pinrecon.config.json');
    writeFileSync(
      configFile,
      JSON.stringify({
        database: 'db.duckdb',
        timezone: 'UTC',
        // Nothing listens on port 9 of loopback: the extract fails at once.
        api: {
          baseUrl: 'http://127.0.0.1:9',
          identifier: 'id',
          secret: 'never-printed-secret',
          maxRetries: 0,
          timeoutMs: 2000,
        },
        // Each failure alerts (issue 31): to a port nothing answers on, once, so the test does not wait on retries.
        email: { smtpUrl: `smtp://127.0.0.1:${await unusedPort()}`, retries: 0 },
        schedules: [
          { name: 'failing-extract', cron: '* * * * * *', job: 'extract', period: '2026-01' },
          // A month extracted before (below), so the reconciliation is of a complete period.
          { name: 'reconcile', cron: '* * * * * *', job: 'reconcile', period: '2025-12' },
        ],
      }),
    );
    const setup = await Warehouse.open(path.join(dir, 'db.duckdb'), { timezone: 'UTC' });
    await recordExtractedMonths(setup, '2025-12', '2025-12').finally(() => setup.close());
    const scheduler = startCli(['schedule', '--config', configFile, '--grace-seconds', '30'], {
      cwd: dir,
      env: { CI: 'true' },
    });
    // Stopped even when the test fails or times out.
    onTestFinished(() => {
      if (scheduler.child.exitCode === null && scheduler.child.signalCode === null) scheduler.child.kill('SIGKILL');
    });
    // Until two of each ran, or the scheduler ended on its own (a loaded machine is slow to start the CLI and each
    // job: `until` has no deadline of its own).
    const count = (log: string, line: RegExp) => (log.match(line) ?? []).length;
    await scheduler.until(
      (log) =>
        count(log, /schedule failing-extract: FAILED/g) >= 2 && count(log, /schedule reconcile: succeeded/g) >= 2,
    );
    scheduler.child.kill('SIGTERM');
    const { code } = await scheduler.done;
    const log = scheduler.output();
    expect(log).toMatch(/schedule failing-extract: FAILED/);
    expect((log.match(/schedule reconcile: succeeded/g) ?? []).length).toBeGreaterThanOrEqual(2);
    expect(log).toContain('scheduler stopped');
    expect(log).not.toContain('never-printed-secret');
    expect(code).toBe(0);

    // Never two jobs on the database at once: the recorded runs do not overlap in time.
    const warehouse = await Warehouse.open(path.join(dir, 'db.duckdb'), { readOnly: true });
    try {
      const runs = await warehouse.all<{ started_at: string; finished_at: string | null; command: string }>(
        `select epoch_ms(started_at) as started_at, epoch_ms(finished_at) as finished_at, command from pipeline_runs ` +
          `where parent_run_id is null order by started_at`,
      );
      expect(runs.length).toBeGreaterThanOrEqual(3);
      for (let i = 1; i < runs.length; i++) {
        expect(Number(runs[i]!.started_at)).toBeGreaterThanOrEqual(Number(runs[i - 1]!.finished_at));
      }
    } finally {
      warehouse.close();
    }
  });
});
