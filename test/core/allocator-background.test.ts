/**
 * DuckDB's jemalloc gives freed pages back from a background thread only while every instance of the process asks for
 * it (core/duckdb.ts): an instance opened with DuckDB's default stops the thread for the whole process. Seen in
 * jemalloc's own statistics, printed by the built code in a child process as it allocates.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { temporaryDirectory } from '../support/ledger.js';

const temp = temporaryDirectory('allocator-background');
afterAll(() => temp.remove());

/** Statistics every 16 MiB allocated, the background thread asked for as pinrecon asks for it. */
const statsConf =
  'background_thread:true,dirty_decay_ms:10,muzzy_decay_ms:0,stats_interval:16777216,stats_interval_opts:gmdablxe';
const work = `CREATE OR REPLACE TABLE t AS SELECT range AS i, range::VARCHAR AS s FROM range(3000000)`;

/** The background threads jemalloc reported at each statistics print while `script` ran (an ES module). */
function backgroundThreads(script: string): number[] {
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: process.cwd(),
    env: { ...process.env, DUCKDB_JE_MALLOC_CONF: statsConf },
    encoding: 'utf8',
  });
  expect(child.status, child.stderr).toBe(0);
  return [...child.stderr.matchAll(/^Background threads: (\d+)/gm)].map((m) => Number(m[1]));
}

describe("DuckDB's allocator", () => {
  it('purges in the background while a warehouse works, through a publish that opens the spare', () => {
    const database = path.join(temp.dir, 'warehouse.duckdb');
    const counts = backgroundThreads(`
      import { Warehouse, publishSnapshot } from './dist/core/warehouse.js';
      const warehouse = await Warehouse.open(${JSON.stringify(database)});
      await warehouse.run(${JSON.stringify(work)});
      await publishSnapshot(warehouse, undefined, { spareFromBytes: 0 });
      // The second publish keeps the first snapshot as the spare; the third updates it, opening it in an instance
      // of its own to make sure nobody reads it.
      for (const table of ['u', 'v']) {
        await warehouse.run(\`CREATE TABLE \${table} (i INTEGER)\`);
        await publishSnapshot(warehouse, undefined, { spareFromBytes: 0 });
      }
      await warehouse.run(${JSON.stringify(work)});
      warehouse.close();`);
    expect(counts.length).toBeGreaterThan(2);
    expect(counts.at(-1)).toBe(1);
  });

  it("stops when an instance opens with DuckDB's default (what the check above would miss)", () => {
    const counts = backgroundThreads(`
      import { duckdb } from './dist/core/duckdb.js';
      const instance = await duckdb.DuckDBInstance.create(${JSON.stringify(path.join(temp.dir, 'plain.duckdb'))});
      const connection = await instance.connect();
      await connection.run(${JSON.stringify(work)});
      instance.closeSync();`);
    expect(counts.length).toBeGreaterThan(2);
    expect(Math.max(...counts)).toBe(0);
  });
});
