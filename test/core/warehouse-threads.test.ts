/** Warehouse.withOneThread and withSetting: a setting for a statement, its own value back after, a failure included. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { Warehouse } from '../../core/warehouse.js';

const dir = mkdtempSync(path.join(tmpdir(), 'pinrecon-threads-'));
let warehouse: Warehouse;

beforeAll(async () => {
  warehouse = await Warehouse.open(path.join(dir, 'pinrecon.duckdb'));
  await warehouse.run('SET threads = 2');
});
afterAll(() => {
  warehouse.close();
  rmSync(dir, { recursive: true, force: true });
});

const threads = async () => Number((await warehouse.one<{ n: string }>(`SELECT current_setting('threads') AS n`))!.n);

test('runs the work on one thread and sets the count back', async () => {
  expect(await warehouse.withOneThread(threads)).toBe(1);
  expect(await threads()).toBe(2);
});

test('sets the count back when the work fails outside a transaction', async () => {
  await expect(warehouse.withOneThread(() => warehouse.run('SELECT * FROM no_such_table'))).rejects.toThrow(
    /no_such_table/,
  );
  expect(await threads()).toBe(2);
});

test('sets the count back after the ROLLBACK when the work fails in a transaction (it refuses any SET)', async () => {
  const failing = warehouse.transaction(() => warehouse.withOneThread(() => warehouse.run("SELECT 'x'::INTEGER")));
  // The work's own error, not the refused SET's.
  await expect(failing).rejects.toThrow(/Could not convert string 'x' to INT32/);
  expect(await threads()).toBe(2);
  // And the next one-thread step starts from the right count.
  expect(await warehouse.withOneThread(threads)).toBe(1);
  expect(await threads()).toBe(2);
});

test('withSetting sets back each setting it changed, nested ones too, after a failed transaction', async () => {
  const off = async () => (await warehouse.one<{ v: string }>(`SELECT current_setting('disabled_optimizers') AS v`))!.v;
  const failing = warehouse.transaction(() =>
    warehouse.withOneThread(() =>
      warehouse.withSetting('disabled_optimizers', 'build_side_probe_side', () => warehouse.run("SELECT 'x'::INT")),
    ),
  );
  await expect(failing).rejects.toThrow(/Could not convert string 'x' to INT32/);
  expect({ threads: await threads(), off: await off() }).toEqual({ threads: 2, off: '' });
  // Inside a one-thread step, the inner setting is set back on its own: the step is still on one thread.
  const inner = await warehouse.withOneThread(async () => {
    await warehouse.withSetting('disabled_optimizers', 'build_side_probe_side', off);
    return { threads: await threads(), off: await off() };
  });
  expect(inner).toEqual({ threads: 1, off: '' });
});
