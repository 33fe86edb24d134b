/**
 * Issue 33 item 4, across processes: an analyst's DuckDB (another process) that opened the snapshot before the last
 * publish holds that file, now the spare, under DuckDB's lock. The next publish must not write into it: it copies
 * the whole database instead, and the analyst's session reads on, unharmed.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { once } from 'node:events';
import { afterAll, describe, expect, it } from 'vitest';
import { sparePath } from '../../core/snapshot-copy.js';
import { privateAccess } from '../../core/file-modes.js';
import { publishSnapshot, snapshotPath } from '../../core/warehouse.js';
import { openWarehouse, temporaryDirectory, testConfig } from '../support/ledger.js';

const temp = temporaryDirectory('snapshot-spare-reader');
/** A file of a few MB: below spareFromBytes, so the spare is asked for. */
const spareAlways = { spareFromBytes: 0 };
const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
  temp.remove();
});

/**
 * Another process holding `file` open read-only (an analyst's DuckDB): prints the note of id 5 when it has it open,
 * and again on each line it is sent, until its input ends.
 */
async function analyst(file: string): Promise<{ read(): Promise<string>; stop(): Promise<void> }> {
  const script = `
    const duckdb = require('@duckdb/node-api');
    (async () => {
      const instance = await duckdb.DuckDBInstance.create(${JSON.stringify(file)}, { access_mode: 'READ_ONLY' });
      const connection = await instance.connect();
      const note = async () => (await connection.runAndReadAll('SELECT note FROM test_notes WHERE id = 5'))
        .getRowObjectsJson()[0].note;
      process.stdout.write(await note() + '\\n');
      process.stdin.on('data', async () => process.stdout.write(await note() + '\\n'));
      process.stdin.on('end', () => { instance.closeSync(); process.exit(0); });
    })();`;
  const child = spawn(process.execPath, ['-e', script], { cwd: process.cwd(), stdio: ['pipe', 'pipe', 'inherit'] });
  children.push(child);
  const lines: string[] = [];
  let waiting: ((line: string) => void) | undefined;
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    for (const line of chunk.split('\n').filter(Boolean)) {
      if (waiting) {
        const take = waiting;
        waiting = undefined;
        take(line);
      } else lines.push(line);
    }
  });
  const next = () =>
    lines.length > 0 ? Promise.resolve(lines.shift()!) : new Promise<string>((resolve) => (waiting = resolve));
  await next(); // open, its first read done
  return {
    read: () => {
      child.stdin!.write('\n');
      return next();
    },
    stop: async () => {
      child.stdin!.end();
      await once(child, 'exit');
    },
  };
}

describe('the snapshot spare and another process reading it', () => {
  it('is not written while another process has it open: the whole file is copied, that reader reads on', async () => {
    const config = testConfig(temp.dir);
    const warehouse = await openWarehouse(config);
    const snapshot = snapshotPath(config.database);
    const spare = sparePath(snapshot);
    try {
      await warehouse.run(`CREATE TABLE test_notes AS SELECT i AS id, md5(i::VARCHAR) AS note FROM range(200000) t(i)`);
      await publishSnapshot(warehouse, privateAccess, spareAlways);
      await warehouse.run(`UPDATE test_notes SET note = 'before the reader' WHERE id = 5`);
      const reader = await analyst(snapshot);
      await publishSnapshot(warehouse, privateAccess, spareAlways); // the file the analyst has open is the spare now
      try {
        await warehouse.run(`UPDATE test_notes SET note = 'after the reader' WHERE id = 5`);
        const held = statSync(spare).ino;
        await publishSnapshot(warehouse, privateAccess, spareAlways);
        expect(statSync(snapshot).ino).not.toBe(held); // not the spare swapped in: a whole copy
        expect(readFileSync(snapshot).equals(readFileSync(config.database))).toBe(true);
        // Its file untouched: the note as it was when it opened the snapshot, before either change.
        expect(await reader.read()).toBe(createHash('md5').update('5').digest('hex'));
      } finally {
        await reader.stop();
      }
    } finally {
      warehouse.close();
    }
  });
});
