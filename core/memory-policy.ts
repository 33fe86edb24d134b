/**
 * DuckDB's memory limit when `memoryLimit` is "auto" (the default): sized from the work, between a floor and a share
 * of the machine's physical memory. A job opens with room for the sales held (what a report or an ad hoc query
 * reads may be any of them). A load: the records of its window (it joins them with `sales` only through a
 * narrow semi join, and replaces changed sales instead of updating them in memory). Reconcile: the rows of the
 * period's scope (its hash joins spill only in part). Temporary tables spill to the `.tmp` folder beside the file.
 */
import os from 'node:os';

export const autoMemoryLimit = 'auto';
const mebibyte = 2 ** 20;
/** Room for any step's work; a month-end of a million sales (1.8M in the database) peaks at ≈ 1 GiB of RSS at it. */
export const memoryFloorBytes = 512 * mebibyte;
/** Per sale held: the room a job opens with. */
export const memoryBytesPerSale = 96;
/**
 * Per record of the window a load is about to add. Measured on a 24-column sales table (2026-11-25), 1M records into
 * 8M sales held: all of them changed sales, the insert that replaces them failed at 96MB and passed at 128MB (the
 * same window as an UPDATE or a MERGE failed at 256MB); 10 % of them changed, the load passed at 96MB.
 */
export const memoryBytesPerLoadedRecord = 128;
/**
 * Per ledger line and sale in reconcile's scope. Measured on the bench month (2,120,000 rows): 233MiB (115 bytes a
 * row) ran out of memory in a hash join, 300MiB (148) passed; the 10M month at 115 bytes a row ran out too, and
 * passed at 160 (peak RSS 4,099 MiB, reconcile 208 s) and at 150 (4,032 MiB, 278 s): 150 keeps the 10M month-end
 * under 4 GiB, by 64 MiB.
 */
export const memoryBytesPerScopeRow = 150;
/** Never more than this share of the machine: the process, the OS and other jobs need the rest. */
export const memoryShareOfMachine = 0.5;

/** The "auto" limit a job opens with, for a database of `sales` sales, in bytes. */
export function autoMemoryLimitBytes(sales: number, physicalBytes = os.totalmem()): number {
  return withinMachine(sales * memoryBytesPerSale, physicalBytes);
}

/** The "auto" limit for loading a window of `records` records, in bytes. */
export function autoLoadLimitBytes(records: number, physicalBytes = os.totalmem()): number {
  return withinMachine(records * memoryBytesPerLoadedRecord, physicalBytes);
}

/** The "auto" limit for reconciling a period whose scope holds `rows` ledger lines and sales, in bytes. */
export function autoReconcileLimitBytes(rows: number, physicalBytes = os.totalmem()): number {
  return withinMachine(rows * memoryBytesPerScopeRow, physicalBytes);
}

function withinMachine(bytes: number, physicalBytes: number): number {
  const ceiling = Math.max(memoryFloorBytes, Math.floor(physicalBytes * memoryShareOfMachine));
  return Math.min(ceiling, Math.max(memoryFloorBytes, Math.ceil(bytes)));
}

/** A byte count as DuckDB reads it, in whole MiB ("1700MiB"). */
export function memorySizeText(bytes: number): string {
  return `${Math.ceil(bytes / mebibyte)}MiB`;
}

/**
 * How the limit in force was chosen, for messages: "auto: 1700MiB for 17,820,000 sales" (`basis`: what it was sized
 * for) or the size given.
 */
export function describeMemoryLimit(setting: string, bytes: number, basis: string): string {
  return setting === autoMemoryLimit ? `auto: ${memorySizeText(bytes)} for ${basis}` : setting;
}
