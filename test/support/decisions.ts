/**
 * For the decision tests: a reconciled period with findings of several kinds (through the real reconcile),
 * decisions typed into a copy of its workbook the way a controller's spreadsheet saves them (exceljs
 * writing a whole workbook, as Excel does), and a LibreOffice round trip of a workbook when `soffice` exists.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import ExcelJS from 'exceljs';
import { reconcile } from '../../pipelines/reconcile/reconcile.js';
import { writeReport } from '../../pipelines/report/report.js';
import {
  asOf,
  capturingOutput,
  insertLedger,
  insertSales,
  ledgerFor,
  period,
  sale,
  type Fixture,
  type SaleRow,
} from './reconcile.js';

export { asOf, period };

/** What a test types into a finding's row; a date may be a Date (a date cell), text or an Excel serial. */
export interface TypedRow {
  decision?: string;
  note?: string;
  owner?: string;
  expectedClearBy?: Date | string | number;
  /** Replace the row's Finding ID (e.g. with one the database does not know). */
  findingId?: string;
}

/** The findings the period holds: a cost break, a sale missing in the ledger, and a price break that a test can fix. */
export interface PeriodFindings {
  costBreak: SaleRow;
  missing: SaleRow;
  fixable: SaleRow;
}

export async function fillFindings(f: Fixture): Promise<PeriodFindings> {
  const costBreak = sale({ partner_cost_price: '9.00' });
  const missing = sale({ partner_cost_price: '7.25' });
  const fixable = sale({ partner_cost_price: '8.50' });
  await insertSales(f.warehouse, [costBreak, missing, fixable]);
  await insertLedger(f.warehouse, [
    ledgerFor(costBreak, { expected_cost: '8.00' }),
    ledgerFor(fixable, { expected_cost: '8.00' }),
  ]);
  return { costBreak, missing, fixable };
}

export async function reconcileAndReport(f: Fixture, reportPeriod = period): Promise<string> {
  const quiet = capturingOutput().output;
  await reconcile(f.warehouse, f.config, { period: reportPeriod, asOf }, quiet);
  return (await writeReport(f.warehouse, f.config, { period: reportPeriod }, quiet)).workbook;
}

/** The finding id of a reference (and type), from the database. */
export async function findingIdOf(f: Fixture, reference: string | null, type?: string): Promise<string> {
  const row = await f.warehouse.one<{ finding_id: string }>(
    `SELECT finding_id FROM recon_exceptions WHERE partner_reference = $1 ${type ? 'AND exception_type = $2' : ''}`,
    type ? [reference, type] : [reference],
  );
  if (!row) throw new Error(`no finding for ${reference}`);
  return row.finding_id;
}

/**
 * Copies `source` to `target` with decisions typed into the rows of the findings named (by finding id), as a
 * spreadsheet program saves it: the whole workbook rewritten. `insertColumnFirst` adds a column of the
 * user's own in front of every finding sheet; `reverseSheets` reorders them.
 */
export async function typeDecisions(
  source: string,
  target: string,
  typed: Record<string, TypedRow>,
  options: { insertColumnFirst?: boolean; deleteSheet?: string } = {},
): Promise<void> {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.readFile(source);
  if (options.deleteSheet) workbook.removeWorksheet(workbook.getWorksheet(options.deleteSheet)!.id);
  workbook.eachSheet((sheet) => {
    if (options.insertColumnFirst && headerOf(sheet)) sheet.spliceColumns(1, 0, ['My own column']);
    const header = headerOf(sheet);
    if (!header) return;
    sheet.eachRow((row, number) => {
      if (number <= header.row) return;
      const id = String(row.getCell(header.columns['Finding ID']!).value ?? '');
      const edit = typed[id];
      if (!edit) return;
      const set = (name: string, value: ExcelJS.CellValue | undefined) => {
        if (value !== undefined) row.getCell(header.columns[name]!).value = value;
      };
      set('Decision', edit.decision);
      set('Note', edit.note);
      set('Owner', edit.owner);
      set('Expected clear by', edit.expectedClearBy);
      if (edit.expectedClearBy instanceof Date) row.getCell(header.columns['Expected clear by']!).numFmt = 'yyyy-mm-dd';
      set('Finding ID', edit.findingId);
    });
  });
  await workbook.xlsx.writeFile(target);
}

/** The header row of a finding sheet (the row naming Finding ID and Decision) and its columns by name. */
function headerOf(sheet: ExcelJS.Worksheet): { row: number; columns: Record<string, number> } | undefined {
  for (let number = 1; number <= Math.min(20, sheet.rowCount); number++) {
    const columns: Record<string, number> = {};
    sheet.getRow(number).eachCell((cell, column) => {
      if (typeof cell.value === 'string') columns[cell.value] = column;
    });
    if (columns['Finding ID'] && columns['Decision']) return { row: number, columns };
  }
  return undefined;
}

/** Whether LibreOffice can be run here (CI may not have it). */
export function hasSoffice(): boolean {
  return spawnSync('soffice', ['--version'], { stdio: 'ignore' }).status === 0;
}

/**
 * `soffice <args>` run to its end. No deadline of its own (a fixed 240 s raced the machine's load) and not
 * synchronous, so the test's timeout, the hang detector, can still fire while LibreOffice runs.
 */
export function runSoffice(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = spawn('soffice', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (status) => resolve({ status, stdout, stderr }));
  });
}

/**
 * Opens `file` in LibreOffice and saves it as `format` (xlsx: "Calc MS Excel 2007 XML"; pdf), in `outDir`,
 * with a profile of its own so it neither waits for nor disturbs another LibreOffice. Returns the new file.
 */
export async function convertWithSoffice(file: string, outDir: string, format: 'xlsx' | 'pdf'): Promise<string> {
  mkdirSync(outDir, { recursive: true });
  const profile = mkdtempSync(path.join(tmpdir(), 'pinrecon-soffice-'));
  try {
    const args = [`-env:UserInstallation=file://${profile}`, '--headless', '--convert-to', format, '--outdir', outDir];
    const converted = await runSoffice([...args, file]);
    if (converted.status !== 0) throw new Error(`soffice exited ${converted.status}: ${converted.stderr}`);
  } finally {
    rmSync(profile, { recursive: true, force: true });
  }
  const made = readdirSync(outDir).find((name) => name === `${path.basename(file, path.extname(file))}.${format}`);
  if (!made) throw new Error(`soffice wrote no ${format} of ${file} into ${outDir}`);
  return path.join(outDir, made);
}
