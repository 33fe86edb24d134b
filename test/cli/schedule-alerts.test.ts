/**
 * Issue 31 item 1: a failed scheduled job reaches a person. `pinrecon schedule` started after missing fire times
 * runs the latest once (said in the log); the failing job sends one alert to email.alertsTo over real SMTP (parsed
 * from the bytes received); the outcome is kept in schedule_runs; the snapshot is republished with the failed run.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { type AddressInfo, createServer, type Socket } from 'node:net';
import path from 'node:path';
import { simpleParser } from 'mailparser';
import { describe, expect, it, onTestFinished } from 'vitest';
import { startMailSink } from '../../doubles/mail-sink/mail-sink.js';
import { composeAlertEmail, retryCommand } from '../../reports/alert-email.js';
import { Warehouse } from '../../core/warehouse.js';
import { runCli, startCli } from '../support/cli.js';
import { runCommand } from '../support/cli-in-process.js';
import { temporaryDirectory } from '../support/ledger.js';

/** Starts the scheduler, waits until `until` says its log is complete, stops it with SIGTERM. */
async function schedulerRun(configFile: string, dir: string, until: (log: string) => boolean): Promise<string> {
  const scheduler = startCli(['schedule', '--config', configFile], { cwd: dir, env: { CI: 'true' } });
  onTestFinished(() => {
    if (scheduler.child.exitCode === null && scheduler.child.signalCode === null) scheduler.child.kill('SIGKILL');
  });
  await scheduler.until(until);
  scheduler.child.kill('SIGTERM');
  const { code } = await scheduler.done;
  expect(code, scheduler.output()).toBe(0);
  return scheduler.output();
}

describe('pinrecon schedule: failures reach a person', () => {
  it('catches up a missed fire time once, alerts alertsTo of its failure, records it, republishes', async () => {
    const temp = temporaryDirectory('schedule-alerts');
    onTestFinished(() => temp.remove());
    const sink = await startMailSink(path.join(temp.dir, 'mail'));
    onTestFinished(() => sink.close());
    const configFile = path.join(temp.dir, 'pinrecon.config.json');
    const database = path.join(temp.dir, 'db.duckdb');
    const schedules = [{ name: 'new-year-extract', cron: '0 6 1 1 *', job: 'extract', period: '2026-01' }];
    const config = {
      database: 'db.duckdb',
      timezone: 'UTC',
      // Nothing listens on port 9 of loopback: the extract fails at once.
      api: { baseUrl: 'http://127.0.0.1:9', identifier: 'id', secret: 'never-mailed-secret', maxRetries: 0 },
      email: { smtpUrl: sink.url, to: ['finance@example.com'], alertsTo: ['ops@example.com'], retries: 0 },
      schedules,
    };
    writeConfig(configFile, config);
    // The scheduler last fired this schedule on 1 January 2025, then was down through 1 January 2026.
    const setup = await Warehouse.open(database, { timezone: 'UTC' });
    try {
      await setup.run(`INSERT INTO schedule_fires VALUES ('new-year-extract', '0 6 1 1 *', '2020-01-01 06:00:00+00')`);
    } finally {
      setup.close();
    }

    const log = await schedulerRun(configFile, temp.dir, (out) => /new-year-extract: alert/.test(out));
    expect(log).toContain(
      `schedule new-year-extract: missed its fire time ${lastNewYear().toISOString()} while the scheduler was down; ` +
        'running it once now',
    );
    expect(log).toMatch(/schedule new-year-extract: FAILED \(exit 1\); the scheduler goes on/);
    expect(log).toContain('schedule new-year-extract: alert sent to ops@example.com');

    // One alert, to alertsTo only, saying what failed, where, how to retry, and the job's error line.
    expect(sink.received).toHaveLength(1);
    const mail = await simpleParser(readFileSync(sink.received[0]!));
    expect(mail.subject).toMatch(/^\[pinrecon\] FAILED: new-year-extract \(pinrecon extract --from 2026-01-01/);
    expect((Array.isArray(mail.to) ? mail.to : [mail.to]).flatMap((to) => to!.value.map((v) => v.address))).toEqual([
      'ops@example.com',
    ]);
    const text = mail.text ?? '';
    expect(text).toContain('The scheduled job "new-year-extract" exited with code 1.');
    expect(text).toContain('catching up a fire time missed while the scheduler was down');
    expect(text).toContain(`Database: ${database}`);
    expect(text).toContain(
      `cd ${temp.dir} && pinrecon extract --from 2026-01-01 --to 2026-01-31 --config ${configFile}`,
    );
    expect(text).toMatch(/Log line:\n {2}.*error.*127\.0\.0\.1:9/i);
    expect(mail.attachments).toHaveLength(0);
    expect(readFileSync(sink.received[0]!, 'utf8')).not.toContain('never-mailed-secret');

    // Recorded, and the snapshot analysts read holds the failed run and its alert.
    const snapshot = await Warehouse.open(path.join(temp.dir, 'db.snapshot.duckdb'), { readOnly: true });
    try {
      const runs = await snapshot.all(
        `SELECT schedule, caught_up, outcome, exit_code, alert_to, alert_status, epoch_ms(fired_at)::VARCHAR AS fired
         FROM schedule_runs`,
      );
      expect(runs).toEqual([
        {
          schedule: 'new-year-extract',
          caught_up: true,
          outcome: 'failed',
          exit_code: 1,
          alert_to: 'ops@example.com',
          alert_status: 'sent',
          fired: String(lastNewYear().getTime()),
        },
      ]);
      const failed = await snapshot.all(`SELECT command, status FROM pipeline_runs WHERE status = 'failed'`);
      expect(failed).toEqual([{ command: 'extract', status: 'failed' }]);
    } finally {
      snapshot.close();
    }

    // Started again: the missed time was run, so nothing is caught up twice.
    const again = await schedulerRun(configFile, temp.dir, (out) => /new-year-extract: next run/.test(out));
    expect(again).not.toContain('missed its fire time');
    expect(sink.received).toHaveLength(1);
  });

  it('alerts about a job it had to stop after the grace period (abandoned), and records it so', async () => {
    const temp = temporaryDirectory('schedule-abandoned');
    onTestFinished(() => temp.remove());
    const sink = await startMailSink(path.join(temp.dir, 'mail'));
    onTestFinished(() => sink.close());
    // An upstream that accepts connections and never answers: the job hangs until it is stopped.
    // Its sockets are never read, so a client's close is never seen: the test destroys them itself, or close()
    // would wait for them forever (whether the job connected before it was stopped depends on the machine's speed).
    const sockets = new Set<Socket>();
    const silent = createServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    onTestFinished(
      () =>
        new Promise<void>((resolve) => {
          for (const socket of sockets) socket.destroy();
          silent.close(() => resolve());
        }),
    );
    const { port } = silent.address() as AddressInfo;
    const configFile = path.join(temp.dir, 'pinrecon.config.json');
    writeConfig(configFile, {
      database: 'db.duckdb',
      timezone: 'UTC',
      api: { baseUrl: `http://127.0.0.1:${port}`, identifier: 'id', secret: 's3cret-id', timeoutMs: 600_000 },
      email: { smtpUrl: sink.url, alertsTo: ['ops@example.com'], retries: 0 },
      schedules: [{ name: 'hanging-catalog', cron: '0 6 1 1 *', job: 'catalog' }],
    });
    const setup = await Warehouse.open(path.join(temp.dir, 'db.duckdb'), { timezone: 'UTC' });
    try {
      await setup.run(`INSERT INTO schedule_fires VALUES ('hanging-catalog', '0 6 1 1 *', '2025-01-01 06:00:00+00')`);
    } finally {
      setup.close();
    }
    const scheduler = startCli(['schedule', '--grace-seconds', '1', '--config', configFile], {
      cwd: temp.dir,
      env: { CI: 'true' },
    });
    onTestFinished(() => {
      if (scheduler.child.exitCode === null && scheduler.child.signalCode === null) scheduler.child.kill('SIGKILL');
    });
    await scheduler.until((log) => /hanging-catalog: starting pinrecon catalog/.test(log));
    scheduler.child.kill('SIGTERM');
    const { code } = await scheduler.done;
    const log = scheduler.output();
    expect(code, log).toBe(0);
    expect(log).toContain('the running job did not finish in time: stopping it');
    expect(log).toMatch(/schedule hanging-catalog: ABANDONED/);
    expect(sink.received).toHaveLength(1);
    const mail = await simpleParser(readFileSync(sink.received[0]!));
    expect(mail.subject).toMatch(/^\[pinrecon\] ABANDONED: hanging-catalog \(pinrecon catalog\)/);
    expect(mail.text).toContain('The scheduled job "hanging-catalog" was stopped before it finished');
    const state = await Warehouse.open(path.join(temp.dir, 'db.duckdb'), { readOnly: true });
    try {
      expect(await state.all(`SELECT outcome, alert_status FROM schedule_runs`)).toEqual([
        { outcome: 'abandoned', alert_status: 'sent' },
      ]);
    } finally {
      state.close();
    }
  });

  it('republishes the snapshot after a job run by hand fails, so analysts see the failed run', async () => {
    const temp = temporaryDirectory('failed-snapshot');
    onTestFinished(() => temp.remove());
    const configFile = path.join(temp.dir, 'pinrecon.config.json');
    // Nothing listens on port 9 of loopback: an extract fails at once.
    const api = { baseUrl: 'http://127.0.0.1:9', identifier: 'id', secret: 'secret-x', maxRetries: 0 };
    writeConfig(configFile, { database: 'db.duckdb', timezone: 'UTC', api });
    const ledger = path.join(temp.dir, 'ledger.csv');
    writeFileSync(
      ledger,
      'partner_reference,product_id,paid_at,sales_price,expected_cost,currency_code,country_code,order_status\n' +
        'PO-1,10,2026-01-05,10.00,8.00,BRL,BR,paid\n',
    );
    // In this process but the failed extract (a spawn costs about a CPU-second; these commands' own files spawn them).
    expect((await runCommand(['ledger', 'import', ledger, '--config', configFile], { cwd: temp.dir })).code).toBe(0);
    // Never extracted: reconcile refuses the incomplete period (exit 1).
    const failed = await runCommand(['reconcile', '--period', '2026-01', '--config', configFile], { cwd: temp.dir });
    expect(failed.code, failed.stderr).toBe(1);
    const extract = ['extract', '--from', '2026-01-01', '--to', '2026-01-02', '--config', configFile];
    // Spawned: a job run by hand, as a process, fails and republishes the snapshot.
    const unreachable = await runCli(extract, { cwd: temp.dir });
    expect(unreachable.code, unreachable.stderr).toBe(1);
    const snapshot = await Warehouse.open(path.join(temp.dir, 'db.snapshot.duckdb'), { readOnly: true });
    try {
      expect(await snapshot.all(`SELECT command, status FROM pipeline_runs ORDER BY started_at`)).toEqual([
        { command: 'ledger import', status: 'succeeded' },
        { command: 'reconcile', status: 'failed' },
        { command: 'extract', status: 'failed' },
      ]);
    } finally {
      snapshot.close();
    }
    // And query, reading that snapshot, says so before anything else.
    const query = await runCommand(['query', 'select 1 as one', '--config', configFile], { cwd: temp.dir });
    expect(query.code, query.stderr).toBe(0);
    expect(query.stderr).toMatch(/warning: the last job, extract started 2\d{3}-.*, failed: the snapshot holds/);
  });

  it('words an abandoned job and one that never started, and quotes the retry command for a shell', () => {
    const facts = {
      schedule: 'month-end',
      args: ['run', '--period', '2026-10', '--email'],
      exitCode: null,
      startedAt: new Date('2026-11-01T06:00:00Z'),
      seconds: 61.5,
      host: 'recon-1',
      workingDirectory: '/srv/pin recon',
      configFile: '/srv/pin recon/pinrecon.config.json',
      database: '/srv/pin recon/data/pinrecon.duckdb',
    };
    const abandoned = composeAlertEmail({ ...facts, failure: 'abandoned', signal: 'SIGTERM' });
    expect(abandoned.subject).toBe(
      '[pinrecon] ABANDONED: month-end (pinrecon run --period 2026-10 --email) on recon-1',
    );
    expect(abandoned.text).toContain('was stopped before it finished (SIGTERM)');
    expect(abandoned.text).toContain('(the job wrote no line on stderr)');
    expect(composeAlertEmail({ ...facts, failure: 'not started' }).text).toContain('could not be started');
    expect(retryCommand(facts)).toBe(
      `cd '/srv/pin recon' && pinrecon run --period 2026-10 --email --config '/srv/pin recon/pinrecon.config.json'`,
    );
  });
});

/** The latest 1 January 06:00 UTC up to now: the one fire time of '0 6 1 1 *' missed since 2020, run once. */
function lastNewYear(now = new Date()): Date {
  const thisYear = Date.UTC(now.getUTCFullYear(), 0, 1, 6);
  return new Date(thisYear <= now.getTime() ? thisYear : Date.UTC(now.getUTCFullYear() - 1, 0, 1, 6));
}

function writeConfig(file: string, config: unknown): void {
  writeFileSync(file, JSON.stringify(config));
}
