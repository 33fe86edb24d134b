/**
 * The database's lock between processes: a writing job that finds the main file held (by another job, or
 * by an analyst's connection) waits for it and then runs, or fails after the configured wait with a hint
 * naming both possibilities; an analyst's reading (pinrecon query's read path) holds the snapshot, never
 * the main file, so it does not block a job. The lock holders are real processes.
 */
import type { ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishSnapshot, snapshotPath, Warehouse } from '../../core/warehouse.js';
import { startCli, type CliResult } from '../support/cli.js';
import { holdOpen, holdWriteLock, openWarehouse, temporaryDirectory, testConfig } from '../support/ledger.js';

const temp = temporaryDirectory('warehouse-lock');
const config = testConfig(temp.dir);
const configFile = path.join(temp.dir, 'pinrecon.config.json');
const ledgerFile = path.join(temp.dir, 'ledger.csv');
const children: ChildProcess[] = [];

beforeAll(async () => {
  writeFileSync(configFile, JSON.stringify({ database: config.database }));
  writeFileSync(
    ledgerFile,
    'partner_reference,product_id,paid_at,sales_price,expected_cost,currency_code,country_code,order_status\n' +
      'L-1,1,2024-03-01,10.00,9.00,BRL,BR,paid\n',
  );
  const warehouse = await openWarehouse(config);
  try {
    await publishSnapshot(warehouse);
  } finally {
    warehouse.close();
  }
});
afterAll(async () => {
  for (const child of children) await stop(child);
  temp.remove();
});

/** A lock holder (see holdOpen) that afterAll stops if its test did not. */
async function holder(held: Promise<ChildProcess>): Promise<ChildProcess> {
  const child = await held;
  children.push(child);
  return child;
}

/** A DuckDB client holding the main file open read-only, as an analyst's connection would. */
function readOnlyConnection(database: string): Promise<ChildProcess> {
  return holder(
    holdOpen(`
      import { DuckDBInstance } from '@duckdb/node-api';
      const instance = await DuckDBInstance.create(${JSON.stringify(database)}, { access_mode: 'READ_ONLY' });
      await instance.connect();`),
  );
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill();
  await new Promise((resolve) => child.once('exit', resolve));
}

/** Runs the CLI; `onStderr` sees its stderr so far as it comes. */
function runJob(
  args: string[],
  env: Record<string, string> = {},
  onStderr?: (text: string) => void,
): Promise<CliResult> {
  const job = startCli([...args, '--config', configFile], { env });
  children.push(job.child);
  if (onStderr) job.child.stderr.on('data', () => onStderr(job.stderr()));
  return job.done;
}

async function ledgerRows(): Promise<string | undefined> {
  const warehouse = await Warehouse.open(config.database, { readOnly: true });
  try {
    return (await warehouse.one<{ n: string }>('SELECT count(*) AS n FROM ledger'))?.n;
  } finally {
    warehouse.close();
  }
}

describe('a writing job and the lock', () => {
  it('waits while an analyst holds the main file, says so once, and runs when it is released', async () => {
    const analyst = await readOnlyConnection(config.database);
    let released = false;
    const job = await runJob(['ledger', 'import', ledgerFile], {}, (stderr) => {
      if (!released && stderr.includes('waiting for')) {
        released = true;
        // The analyst closes the connection a moment later.
        setTimeout(() => void stop(analyst), 700);
      }
    });
    expect(job.code, job.stderr).toBe(0);
    expect(
      job.stderr.match(/waiting for .*pinrecon.duckdb, held by another process \(PID \d+\) \(up to 60 s\)/g),
    ).toHaveLength(1);
    expect(await ledgerRows()).toBe('1');
  });

  it(
    'fails after the configured wait, naming the holder and both possibilities (another job, ' +
      'or a connection to the main file)',
    async () => {
      const analyst = await readOnlyConnection(config.database);
      try {
        const started = Date.now();
        const job = await runJob(['ledger', 'import', ledgerFile], { PINRECON_LOCK_WAIT_SECONDS: '1.5' });
        expect(job.code).toBe(1);
        expect(Date.now() - started).toBeGreaterThanOrEqual(1500);
        expect(job.stderr).toContain(`locked by another process (PID ${analyst.pid}) after waiting`);
        // Off a terminal the wait is said on a timestamped line, like every other (issue 31).
        expect(job.stderr).toMatch(/^\d{4}-\d{2}-\d{2}T[\d:.]+Z waiting for /m);
        expect(job.stderr).toMatch(
          new RegExp(
            /what to do: Either another pinrecon job is running .* or someone has the main file open .*: /.source +
              /analysts should open the snapshot .*pinrecon.snapshot.duckdb instead/.source,
          ),
        );
      } finally {
        await stop(analyst);
      }
    },
  );

  it(
    'Warehouse.open: a read-only open does not wait by default; ' +
      'a writer waits lockWaitSeconds and tells onLockWait once',
    async () => {
      const job = await holder(holdWriteLock(config.database));
      try {
        // Not waiting shows as never telling onLockWait (a duration would depend on how busy the machine is).
        const toldReader: string[] = [];
        await expect(
          Warehouse.open(config.database, { readOnly: true, onLockWait: (line) => toldReader.push(line) }),
        ).rejects.toThrow(/locked by another process/);
        expect(toldReader).toEqual([]);
        const told: string[] = [];
        const started = Date.now();
        await expect(
          Warehouse.open(config.database, { lockWaitSeconds: 1.2, onLockWait: (line) => told.push(line) }),
        ).rejects.toThrow(/after waiting 1 s/);
        expect(Date.now() - started).toBeGreaterThanOrEqual(1200);
        expect(told).toEqual([
          expect.stringMatching(/^waiting for .*pinrecon.duckdb, held by another process \(PID \d+\) \(up to 1.2 s\)$/),
        ]);
      } finally {
        await stop(job);
      }
    },
  );
});

describe("an analyst's reading and a job", () => {
  it(
    "pinrecon query's read path holds the snapshot, not the main file: " +
      'a job runs meanwhile and republishes the snapshot',
    async () => {
      // The query job's room since Structure III (pipelines/analysts/): dist/pipelines/query.js was a stale build of
      // the old code, absent after npm ci.
      const query = await holder(
        holdOpen(`
        import { loadConfig } from './dist/config/load.js';
        import { ConsoleOutput } from './dist/cli/output.js';
        import { openForReading } from './dist/pipelines/analysts/query.js';
        const { config } = loadConfig({ file: ${JSON.stringify(configFile)} });
        const warehouse = await openForReading(config, new ConsoleOutput(true));
        await warehouse.all('SELECT count(*) FROM ledger');`),
      );
      try {
        const job = await runJob(['ledger', 'import', ledgerFile, '--json']);
        expect(job.code, job.stderr).toBe(0);
        expect(job.stderr).not.toMatch(/waiting for/);
        const snapshot = await Warehouse.open(snapshotPath(config.database), { readOnly: true });
        try {
          expect(await snapshot.one('SELECT count(*) AS n FROM ledger')).toEqual({ n: '1' });
        } finally {
          snapshot.close();
        }
      } finally {
        await stop(query);
      }
    },
  );
});
