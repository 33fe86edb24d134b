/**
 * Issue 33: the analysts' snapshot is copied only when the database holds something it does not. A checkpoint that
 * wrote nothing leaves the file as it was, so publishing again (a job that changed nothing, a job that only reads)
 * keeps the same snapshot file; a change, a rewritten file or other access asked replace it.
 */
import { statSync, utimesSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { publishSnapshot, snapshotPath, Warehouse } from '../../core/warehouse.js';
import { withJobWarehouse } from '../../cli/context.js';
import { openWarehouse, temporaryDirectory, testConfig } from '../support/ledger.js';

const temp = temporaryDirectory('snapshot-publish');
afterAll(() => temp.remove());

/** The snapshot file's identity: a new copy is a new inode (written through a temporary, then renamed). */
const snapshotFile = (database: string) => {
  const stat = statSync(snapshotPath(database));
  return { inode: stat.ino, mode: stat.mode & 0o777 };
};

async function rowsIn(file: string): Promise<number> {
  const snapshot = await Warehouse.open(file, { readOnly: true, applySchema: false });
  try {
    const row = await snapshot.one<{ n: bigint }>('SELECT count(*) AS n FROM test_notes');
    return Number(row!.n);
  } finally {
    snapshot.close();
  }
}

/** A row an analyst would see: a note in a table of the test's own. */
const addNote = async (warehouse: Warehouse, name: string) => {
  await warehouse.run('CREATE TABLE IF NOT EXISTS test_notes (note VARCHAR)');
  await warehouse.run('INSERT INTO test_notes VALUES ($1)', [name]);
};

describe('publishing the snapshot', () => {
  it('copies only what changed: nothing new keeps the file; a change, a rewrite, other access replace it', async () => {
    const config = testConfig(temp.dir);
    const warehouse = await openWarehouse(config);
    try {
      await addNote(warehouse, 'a.csv');
      await publishSnapshot(warehouse);
      const first = snapshotFile(config.database);
      expect(await rowsIn(snapshotPath(config.database))).toBe(1);

      await warehouse.all('SELECT * FROM test_notes');
      await publishSnapshot(warehouse);
      expect(snapshotFile(config.database)).toEqual(first);

      await addNote(warehouse, 'b.csv');
      await publishSnapshot(warehouse);
      const changed = snapshotFile(config.database);
      expect(changed.inode).not.toBe(first.inode);
      expect(await rowsIn(snapshotPath(config.database))).toBe(2);

      // A file written after its snapshot (keys protect rewrites it whole) is copied whatever its headers say.
      const later = new Date(Date.now() + 60_000);
      utimesSync(config.database, later, later);
      await publishSnapshot(warehouse);
      const rewritten = snapshotFile(config.database);
      expect(rewritten.inode).not.toBe(changed.inode);

      // analysts.group asks for 0640: the same content is published again with that access.
      await publishSnapshot(warehouse, { mode: 0o640, gid: process.getgid!() });
      expect(snapshotFile(config.database)).toEqual({ inode: expect.any(Number), mode: 0o640 });
      expect(snapshotFile(config.database).inode).not.toBe(rewritten.inode);
    } finally {
      warehouse.close();
    }
  });

  it('a job that only reads publishes nothing; what it recorded reaches the snapshot with the next job', async () => {
    const config = testConfig(temp.dir);
    config.database = `${temp.dir}/jobs.duckdb`;
    await withJobWarehouse(config, (warehouse) => addNote(warehouse, 'a.csv'));
    const published = snapshotFile(config.database);
    await withJobWarehouse(config, (warehouse) => addNote(warehouse, 'written-by-a-reader.csv'), {
      readsOnly: true,
    });
    expect(snapshotFile(config.database)).toEqual(published);
    expect(await rowsIn(snapshotPath(config.database))).toBe(1);
    await withJobWarehouse(config, (warehouse) => addNote(warehouse, 'c.csv'));
    expect(snapshotFile(config.database).inode).not.toBe(published.inode);
    expect(await rowsIn(snapshotPath(config.database))).toBe(3);
  });
});
