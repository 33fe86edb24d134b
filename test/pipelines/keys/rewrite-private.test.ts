/**
 * `keys protect` writes the whole database again into a new file (pipelines/keys/protect.ts): that file holds every
 * sale, so it must be private from its first byte, whatever the caller's umask, and a killed rewrite's copy must not
 * stay behind (issue 34).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, statSync, watch, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, test } from 'vitest';
import { removeDeadTemporaries } from '../../../core/file-modes.js';
import { Warehouse } from '../../../core/warehouse.js';
import { rewriteDatabaseFile } from '../../../pipelines/keys/protect.js';

test('the rewritten database is never wider than 0600, even under a permissive umask', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'pinrecon-rewrite-'));
  const file = path.join(dir, 'pinrecon.duckdb');
  const warehouse = await Warehouse.open(file);
  // Enough rows that the copy takes a while: the folder's events are seen while the new file is being written.
  await warehouse.run('CREATE TABLE filler AS SELECT range AS i, md5(range::VARCHAR) AS t FROM range(500000)');
  warehouse.close();
  const before = statSync(file).mode & 0o777;
  const modes: number[] = [];
  const watcher = watch(dir, (_event, name) => {
    if (!name?.includes('.tmp-')) return;
    const stat = statSync(path.join(dir, name), { throwIfNoEntry: false });
    if (stat) modes.push(stat.mode & 0o777);
  });
  const umask = process.umask(0o022);
  try {
    await rewriteDatabaseFile(file, {});
  } finally {
    process.umask(umask);
    watcher.close();
  }
  // Before the fix DuckDB created the copy 0644 and it was made private only after the whole copy was written.
  expect(modes.length).toBeGreaterThan(0);
  expect(modes.filter((mode) => (mode & 0o077) !== 0).map((mode) => mode.toString(8))).toEqual([]);
  // The file then takes the mode the database had.
  expect(statSync(file).mode & 0o777).toBe(before);
});

test("a killed rewrite's copy and its write-ahead log are removed at the next start", () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'pinrecon-rewrite-'));
  const dead = spawnSync(process.execPath, ['-e', '0']).pid;
  const copy = path.join(dir, `pinrecon.duckdb.tmp-${dead}`);
  writeFileSync(copy, 'a copy of the database');
  writeFileSync(`${copy}.wal`, 'its log');
  const removed = removeDeadTemporaries(dir, (name) => name === 'pinrecon.duckdb');
  expect(removed.sort()).toEqual([copy, `${copy}.wal`]);
  expect(existsSync(copy) || existsSync(`${copy}.wal`)).toBe(false);
});
