/**
 * DuckDB's memory limit when `memoryLimit` is "auto" (the default): sized from the work, between a floor and a share
 * of the machine's physical memory. A load: the records of the window it loads (its joins against `sales` hold the
 * window's side; `sales` itself has no index to hold). Reconcile: the rows of the period's scope (its hash joins
 * spill only in part). Temporary tables spill to the `.tmp` folder beside the file.
 */
import os from 'node:os';

export const autoMemoryLimit = 'auto';
const mebibyte = 2 ** 20;
/** Room for any step's work; a month-end of a million sales (1.8M in the database) peaks at ≈ 1 GiB of RSS at it. */
export const memoryFloorBytes = 512 * mebibyte;
/**
 * Per record of the window a load brings: the staging's anti join over the records stored unchanged is held whole
 * (it was the first step to run out of memory in the 10M month). The same allowance the policy gave each sale when
 * `sales` had an index, now for the window's records only: the history no longer costs memory.
 */
export const memoryBytesPerLoadedRecord = 96;
/**
 * Per ledger line and sale in reconcile's scope. Measured on the bench month (2,120,000 rows): 233MiB (115 bytes a
 * row) ran out of memory in a hash join, 300MiB (148) passed; the 10M month at 115 bytes a row ran out too.
 */
export const memoryBytesPerScopeRow = 160;
/** Never more than this share of the machine: the process, the OS and other jobs need the rest. */
export const memoryShareOfMachine = 0.5;

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
 * How the limit in force was chosen, for messages: "auto: 916MiB for a window of 10,000,000 records" (`basis`: what
 * it was sized for) or the size given.
 */
export function describeMemoryLimit(setting: string, bytes: number, basis: string): string {
  return setting === autoMemoryLimit ? `auto: ${memorySizeText(bytes)} for ${basis}` : setting;
}
