/** memoryLimit "auto": sized from the work, between its floor and half the machine; a real DuckDB follows it. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, test } from 'vitest';
import {
  autoLoadLimitBytes,
  autoMemoryLimitBytes,
  autoReconcileLimitBytes,
  memoryBytesPerLoadedRecord,
  memoryBytesPerSale,
  memoryBytesPerScopeRow,
  memoryFloorBytes,
  memorySizeText,
} from '../../core/memory-policy.js';
import { Warehouse } from '../../core/warehouse.js';

const gibibyte = 2 ** 30;

test('the floor for a small database, 96 bytes a sale beyond it, never more than half the machine', () => {
  expect(autoMemoryLimitBytes(0, 16 * gibibyte)).toBe(memoryFloorBytes);
  expect(autoMemoryLimitBytes(1_782_000, 16 * gibibyte)).toBe(memoryFloorBytes);
  expect(autoMemoryLimitBytes(17_820_000, 16 * gibibyte)).toBe(17_820_000 * memoryBytesPerSale);
  expect(autoMemoryLimitBytes(500_000_000, 16 * gibibyte)).toBe(8 * gibibyte);
  // A machine smaller than twice the floor still gets the floor.
  expect(autoMemoryLimitBytes(17_820_000, 512 * 2 ** 20)).toBe(memoryFloorBytes);
});

test("a load's limit follows the records of its window, not the sales held", () => {
  // The 1M month's windows stay at the floor; a 10M window gets 128 bytes a record.
  expect(autoLoadLimitBytes(1_000_000, 16 * gibibyte)).toBe(memoryFloorBytes);
  expect(autoLoadLimitBytes(10_230_182, 16 * gibibyte)).toBe(10_230_182 * memoryBytesPerLoadedRecord);
  expect(autoLoadLimitBytes(500_000_000, 16 * gibibyte)).toBe(8 * gibibyte);
});

test("reconcile's limit follows the rows of its scope, within the same floor and share of the machine", () => {
  // The 1M bench month's scope (2.12M rows) stays at the floor; the 10M month's (21.2M) gets 150 bytes a row.
  expect(autoReconcileLimitBytes(2_120_000, 16 * gibibyte)).toBe(memoryFloorBytes);
  expect(autoReconcileLimitBytes(21_200_000, 16 * gibibyte)).toBe(21_200_000 * memoryBytesPerScopeRow);
  expect(autoReconcileLimitBytes(500_000_000, 16 * gibibyte)).toBe(8 * gibibyte);
});

test('"auto" sets DuckDB to the floor on an empty file and raises it for the window a load adds', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'pinrecon-memory-'));
  const warehouse = await Warehouse.open(path.join(dir, 'pinrecon.duckdb'), { memoryLimit: 'auto' });
  try {
    // DuckDB shows its limit as "512.0 MiB" or "1.6 GiB".
    const limitMiB = async () => {
      const [, number, unit] = /([0-9.]+)\s*(MiB|GiB)/.exec(await warehouse.memoryLimit())!;
      return Number(number) * (unit === 'GiB' ? 1024 : 1);
    };
    expect(await limitMiB()).toBe(512);
    expect(warehouse.memoryLimitInForce()).toBe('auto: 512MiB for 0 sales');
    // A window of ten million records about to be loaded into the empty file.
    await warehouse.fitMemoryToLoad(10_000_000);
    const sized = Math.ceil((10_000_000 * memoryBytesPerLoadedRecord) / 2 ** 20);
    // DuckDB shows a limit above 1 GiB in tenths of a GiB (≤ 103 MiB off).
    const isSized = async () => expect(Math.abs((await limitMiB()) - sized)).toBeLessThan(103);
    await isSized();
    expect(warehouse.memoryLimitInForce()).toBe(
      `auto: ${memorySizeText(10_000_000 * memoryBytesPerLoadedRecord)} for a window of 10,000,000 records`,
    );
    // Never lowered within a job: a smaller load after a bigger one keeps the room.
    await warehouse.fitMemoryToLoad(1_000);
    await isSized();
    // Reconcile raises it for a scope that needs more, and says what for; a smaller scope leaves it.
    await warehouse.fitMemoryToReconcile(1_000_000);
    await isSized();
    await warehouse.fitMemoryToReconcile(20_000_000);
    expect(warehouse.memoryLimitInForce()).toBe(
      `auto: ${memorySizeText(20_000_000 * memoryBytesPerScopeRow)} for 20,000,000 rows to reconcile`,
    );
    const scopeMiB = (20_000_000 * memoryBytesPerScopeRow) / 2 ** 20;
    expect(Math.abs((await limitMiB()) - scopeMiB)).toBeLessThan(103);
    // An explicit size is taken as given.
    await warehouse.useMemoryLimit('300MB');
    await warehouse.fitMemoryToLoad(10_000_000);
    await warehouse.fitMemoryToReconcile(20_000_000);
    expect(warehouse.memoryLimitInForce()).toBe('300MB');
    expect(await limitMiB()).toBeCloseTo(286, -1);
    // extract.memoryLimit given: the windows' size, then the job's "auto" again, sized afresh (never DuckDB's RESET).
    await warehouse.useMemoryLimit('auto');
    expect(warehouse.memoryLimitSetting()).toBe('auto');
    expect(await limitMiB()).toBe(512);
  } finally {
    warehouse.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
