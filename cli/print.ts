/**
 * Data printed on stdout by commands that stream it rather than hand it to `Output.result` (`query`,
 * `findings list`): every text passes the one printable-text rule (core/text-safety.ts) here, so no path of
 * the CLI writes a file's or the upstream's escape sequences to a terminal. (issue 18)
 */
import { printable, printableJson } from '../core/text-safety.js';

/** Writes text to stdout without control characters or escape sequences, waiting when the pipe is full. */
export async function printText(text: string): Promise<void> {
  await writeStdout(printable(text));
}

/** Writes a value as JSON (indented when asked), its DEL and C1 controls escaped like the C0 ones. */
export async function printJson(value: unknown, indent?: number): Promise<void> {
  await writeStdout(`${printableJson(value, indent)}\n`);
}

/** Rows whose text cells are printable before a table is laid out (so the columns line up after stripping). */
export function printableCells(rows: Record<string, unknown>[]): Record<string, unknown>[] {
  const clean = (value: unknown) => (typeof value === 'string' ? printable(value) : value);
  return rows.map((row) => Object.fromEntries(Object.entries(row).map(([key, value]) => [key, clean(value)])));
}

/** Writes to stdout, waiting when the pipe is full (a million rows into `head` or a file). */
async function writeStdout(text: string): Promise<void> {
  if (!process.stdout.write(text)) await new Promise<void>((resolve) => process.stdout.once('drain', () => resolve()));
}
