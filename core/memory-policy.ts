/**
 * DuckDB's memory limit when `memoryLimit` is "auto" (the default): sized from the work — the sales the database
 * holds plus those a load is about to add — between a floor and a share of the machine's physical memory. What
 * DuckDB cannot spill grows with the sales (the ART index of `sales.transaction_id`, ~40–50 bytes a sale, held
 * whole while a window is upserted); joins, sorts and temporary tables spill to the `.tmp` folder beside the file.
 */
import os from 'node:os';

export const autoMemoryLimit = 'auto';
const mebibyte = 2 ** 20;
/** Keeps a month-end of a million sales (1.8M in the database) under 1 GiB of RSS in all. */
export const memoryFloorBytes = 512 * mebibyte;
/** Twice the unspillable index per sale, so the rest of a step keeps room to work beside it. */
export const memoryBytesPerSale = 96;
/** Never more than this share of the machine: the process, the OS and other jobs need the rest. */
export const memoryShareOfMachine = 0.5;

/** The "auto" limit for a database of `sales` sales (held plus incoming), in bytes. */
export function autoMemoryLimitBytes(sales: number, physicalBytes = os.totalmem()): number {
  const ceiling = Math.max(memoryFloorBytes, Math.floor(physicalBytes * memoryShareOfMachine));
  return Math.min(ceiling, Math.max(memoryFloorBytes, Math.ceil(sales * memoryBytesPerSale)));
}

/** A byte count as DuckDB reads it, in whole MiB ("1700MiB"). */
export function memorySizeText(bytes: number): string {
  return `${Math.ceil(bytes / mebibyte)}MiB`;
}

/** How the limit in force was chosen, for messages: "auto (1700MiB for 17,820,000 sales)" or the size given. */
export function describeMemoryLimit(setting: string, bytes: number, sales: number): string {
  return setting === autoMemoryLimit
    ? `auto: ${memorySizeText(bytes)} for ${sales.toLocaleString('en-US')} sales`
    : setting;
}
