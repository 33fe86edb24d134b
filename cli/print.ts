/**
 * Data printed on stdout by commands that stream it rather than hand it to `Output.result` (`query`,
 * `findings list`, `actions list`): every text passes the one printable-text rule (core/text-safety.ts) here, so no
 * path of the CLI writes a file's or the provider's escape sequences to a terminal. (issue 18)
 */
import { formatTable } from '../core/output.js';
import { neutralizeFormula, printable, printableJson } from '../core/text-safety.js';

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

/** One CSV cell: no control characters, no formula a spreadsheet would run, quoted when needed. */
export function csvField(value: unknown): string {
  if (value === null || value === undefined) return '';
  const raw = typeof value === 'object' ? JSON.stringify(value) : String(value);
  const text = typeof value === 'string' ? neutralizeFormula(printable(raw)) : printable(raw);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/**
 * Rows as a table, CSV or JSON on stdout, every text through the printable-text rule (`findings list`, `actions list`).
 */
export async function printRows(rows: object[], format: string, none: string): Promise<void> {
  if (format === 'json') await printJson(rows, 2);
  else if (format === 'csv') {
    const columns = rows.length > 0 ? Object.keys(rows[0]!) : [];
    await printText(
      `${[columns.join(','), ...rows.map((r) => Object.values(r).map(csvField).join(','))].join('\n')}\n`,
    );
  } else {
    await printText(
      `${rows.length === 0 ? none : formatTable(printableCells(rows as unknown as Record<string, unknown>[]))}\n`,
    );
  }
}
