/**
 * Issue 33 item 4: a change publishes the snapshot by updating the spare (the snapshot before the current one) in its
 * changed blocks and swapping it in; the result is the database byte for byte. A spare someone still reads, another
 * access, or `keys protect` get a whole copy instead, and the reader reads on.
 */
import { closeSync, copyFileSync, existsSync, openSync, readFileSync, statSync, writeSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { sparePath, updateSpare } from '../../core/snapshot-copy.js';
import { publishSnapshot, snapshotPath, Warehouse } from '../../core/warehouse.js';
import { privateAccess } from '../../core/file-modes.js';
import { duckdb } from '../../core/duckdb.js';
import { openWarehouse, temporaryDirectory, testConfig } from '../support/ledger.js';

const temp = temporaryDirectory('snapshot-spare');
afterAll(() => temp.remove());

const inode = (file: string) => statSync(file).ino;
/** These files are a few MB: below spareFromBytes, where a whole copy is cheaper, so the spare is asked for. */
const spareAlways = { spareFromBytes: 0 };

/** A table of some megabytes (many blocks), so one changed row leaves most blocks as they were. */
async function fill(warehouse: Warehouse): Promise<void> {
  await warehouse.run(
    `CREATE TABLE test_notes AS SELECT i AS id, md5(i::VARCHAR) || md5((i * 7)::VARCHAR) AS note
     FROM range(400000) t(i)`,
  );
}

async function noteIn(file: string, id: number): Promise<string | undefined> {
  const instance = await duckdb.DuckDBInstance.create(file, { access_mode: 'READ_ONLY' });
  try {
    const connection = await instance.connect();
    const reader = await connection.runAndReadAll(`SELECT note FROM test_notes WHERE id = ${id}`);
    return reader.getRowObjectsJson()[0]?.note as string | undefined;
  } finally {
    instance.closeSync();
  }
}

async function database(name: string): Promise<{ warehouse: Warehouse; file: string; snapshot: string }> {
  const config = testConfig(temp.dir);
  config.database = `${temp.dir}/${name}.duckdb`;
  const warehouse = await openWarehouse(config);
  await fill(warehouse);
  return { warehouse, file: config.database, snapshot: snapshotPath(config.database) };
}

describe('the snapshot spare', () => {
  it('is updated in its changed blocks and swapped in: the snapshot is the database, byte for byte', async () => {
    const { warehouse, file, snapshot } = await database('blocks');
    const spare = sparePath(snapshot);
    try {
      await publishSnapshot(warehouse, privateAccess, spareAlways);
      expect(existsSync(spare)).toBe(false); // nothing to keep yet
      await warehouse.run(`UPDATE test_notes SET note = 'first change' WHERE id = 10`);
      await publishSnapshot(warehouse, privateAccess, spareAlways);
      expect(existsSync(spare)).toBe(true); // the replaced snapshot

      // What the publish does, on a copy: only the blocks that differ are written.
      await warehouse.run(`UPDATE test_notes SET note = 'second change' WHERE id = 20`);
      await warehouse.run('CHECKPOINT');
      const trial = `${temp.dir}/trial.duckdb`;
      copyFileSync(spare, trial);
      const update = await updateSpare(file, trial, privateAccess);
      expect(update!.blocks).toBeGreaterThan(20);
      expect(update!.written).toBeGreaterThan(0);
      expect(update!.written).toBeLessThan(update!.blocks / 2);
      expect(readFileSync(trial).equals(readFileSync(file))).toBe(true);

      const [snapshotBefore, spareBefore] = [inode(snapshot), inode(spare)];
      await publishSnapshot(warehouse, privateAccess, spareAlways);
      // Swapped: the spare is the snapshot now, and the snapshot before it the next spare.
      expect(inode(snapshot)).toBe(spareBefore);
      expect(inode(spare)).toBe(snapshotBefore);
      expect(readFileSync(snapshot).equals(readFileSync(file))).toBe(true);
      expect(await noteIn(snapshot, 20)).toBe('second change');
      expect(await noteIn(snapshot, 10)).toBe('first change');
      expect(existsSync(`${spare}.wal`)).toBe(false);
    } finally {
      warehouse.close();
    }
  });

  it('rewrites a block whose bytes differ under an equal checksum (at 10M: not the file)', async () => {
    const { warehouse, file, snapshot } = await database('same-checksum');
    try {
      await publishSnapshot(warehouse, privateAccess, spareAlways);
      await warehouse.run(`UPDATE test_notes SET note = 'a change' WHERE id = 10`);
      await publishSnapshot(warehouse, privateAccess, spareAlways);
      const trial = `${temp.dir}/same-checksum-trial.duckdb`;
      copyFileSync(snapshot, trial); // the file, byte for byte
      // Two bytes inside the last block, after its 8-byte checksum, as the 10M spare had them in its second.
      const fd = openSync(trial, 'r+');
      writeSync(fd, Buffer.from('xx'), 0, 2, statSync(trial).size - 256 * 1024 + 23 * 4096);
      closeSync(fd);
      expect(readFileSync(trial).equals(readFileSync(file))).toBe(false);
      const update = await updateSpare(file, trial, privateAccess);
      expect(update!.written).toBe(1);
      expect(readFileSync(trial).equals(readFileSync(file))).toBe(true);
    } finally {
      warehouse.close();
    }
  });

  it('held by a reader in this process, it is left alone: the whole file is copied, the reader reads on', async () => {
    const { warehouse, file, snapshot } = await database('reader');
    const spare = sparePath(snapshot);
    try {
      await publishSnapshot(warehouse, privateAccess, spareAlways);
      await warehouse.run(`UPDATE test_notes SET note = 'seen by the reader' WHERE id = 5`);
      await publishSnapshot(warehouse, privateAccess, spareAlways);
      // A page of `pinrecon serve` opened the snapshot before the last publish: that file is the spare now. (Another
      // process's reader is test/cli/snapshot-spare-reader.test.ts: DuckDB's lock keeps the publisher off it.)
      const reader = await Warehouse.open(spare, { readOnly: true, applySchema: false });
      try {
        const before = inode(spare);
        await warehouse.run(`UPDATE test_notes SET note = 'after the reader' WHERE id = 5`);
        await publishSnapshot(warehouse, privateAccess, spareAlways);
        expect(inode(snapshot)).not.toBe(before);
        expect(readFileSync(snapshot).equals(readFileSync(file))).toBe(true);
        expect(await noteIn(snapshot, 5)).toBe('after the reader');
        const read = await reader.one<{ note: string }>('SELECT note FROM test_notes WHERE id = 5');
        expect(read!.note).not.toBe('after the reader');
      } finally {
        reader.close();
      }
    } finally {
      warehouse.close();
    }
  });

  it('is neither kept nor used below spareFromBytes, where a whole copy is cheaper', async () => {
    const { warehouse, snapshot } = await database('small');
    try {
      await publishSnapshot(warehouse);
      await warehouse.run(`UPDATE test_notes SET note = 'small' WHERE id = 3`);
      await publishSnapshot(warehouse);
      expect(existsSync(sparePath(snapshot))).toBe(false);
      expect(await noteIn(snapshot, 3)).toBe('small');
    } finally {
      warehouse.close();
    }
  });

  it('is not kept with another access, nor by keys protect (an old copy still holds the keys it removed)', async () => {
    const { warehouse, snapshot } = await database('access');
    const spare = sparePath(snapshot);
    try {
      await publishSnapshot(warehouse, privateAccess, spareAlways);
      await warehouse.run(`UPDATE test_notes SET note = 'x' WHERE id = 1`);
      await publishSnapshot(warehouse, privateAccess, spareAlways);
      expect(existsSync(spare)).toBe(true);
      // analysts.group now asks for 0640: the 0600 snapshot and spare are not kept as a spare of the 0640 one.
      await warehouse.run(`UPDATE test_notes SET note = 'y' WHERE id = 1`);
      await publishSnapshot(warehouse, { mode: 0o640, gid: process.getgid!() }, spareAlways);
      expect(existsSync(spare)).toBe(false);
      await warehouse.run(`UPDATE test_notes SET note = 'z' WHERE id = 1`);
      await publishSnapshot(warehouse, { mode: 0o640, gid: process.getgid!() }, spareAlways);
      expect(statSync(spare).mode & 0o777).toBe(0o640);

      await warehouse.run(`UPDATE test_notes SET note = 'protected' WHERE id = 1`);
      await publishSnapshot(warehouse, privateAccess, { keepNoOldCopy: true });
      expect(existsSync(spare)).toBe(false);
      expect(await noteIn(snapshot, 1)).toBe('protected');
    } finally {
      warehouse.close();
    }
  });
});
