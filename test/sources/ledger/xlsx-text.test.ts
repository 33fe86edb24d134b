/**
 * The XLSX ledger reader keeps every character (issue 31 item 4): exceljs's streaming reader decoded each inflated
 * chunk apart and turned about 1 multi-byte reference in 6,000 into `a��ão`. References and notes of every length
 * (so some character straddles every chunk boundary), stored inline and in the shared strings, come back exact,
 * in accepted rows and in the raw text of rejected ones, with their row numbers; and from a ledger LibreOffice
 * saved (its shared strings, its dates by number format), where LibreOffice is installed.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import ExcelJS from 'exceljs';
import { afterAll, describe, expect, it } from 'vitest';
import { configSchema } from '../../../config/schema.js';
import { readLedger } from '../../../sources/ledger/read-ledger.js';
import type { LedgerItem, LedgerReadSettings } from '../../../sources/ledger/types.js';
import { temporaryDirectory } from '../../support/ledger.js';
import { hasSoffice, runSoffice } from '../../support/decisions.js';

const temp = temporaryDirectory('ledger-xlsx-text');
afterAll(() => temp.remove());

/** 1-, 2-, 3- and 4-byte characters after a run of ASCII whose length shifts them one byte each row. */
const referenceOf = (i: number) => `${'x'.repeat(i % 101)}ação-日本語-😀-${i}`;
const noteOf = (i: number) => `${'n'.repeat((i * 7) % 89)} São João — ç€ 🇧🇷 ${i}`;
const rows = 6_000;
/** Every 50th row has a product that is not a number: rejected, its raw text must keep the characters too. */
const rejected = (i: number) => i % 50 === 7;

const header = [
  'partner_reference',
  'product_id',
  'paid_at',
  'sales_price',
  'expected_cost',
  'currency_code',
  'order_status',
];

async function writeLedger(file: string, sharedStrings: boolean): Promise<void> {
  const writer = new ExcelJS.stream.xlsx.WorkbookWriter({ filename: file, useSharedStrings: sharedStrings });
  const sheet = writer.addWorksheet('Lançamentos');
  sheet.addRow(['Relatório de vendas — março']).commit();
  sheet.addRow([...header, 'nota']).commit();
  for (let i = 0; i < rows; i++) {
    const product = rejected(i) ? `produto nº ${i}` : 2101;
    sheet.addRow([referenceOf(i), product, '2025-03-10 10:00:00', 10, 9.5, 'BRL', 'paid', noteOf(i)]).commit();
  }
  await sheet.commit();
  await writer.commit();
}

function settings(): LedgerReadSettings {
  return { ...configSchema.parse({ ledger: {} }).ledger, format: 'xlsx' };
}

describe('XLSX ledger: multi-byte text', () => {
  for (const sharedStrings of [false, true]) {
    it(`reads every reference and note exact (${sharedStrings ? 'shared strings' : 'text in the sheet'})`, async () => {
      const file = path.join(temp.dir, `ledger-${sharedStrings ? 'shared' : 'inline'}.xlsx`);
      await writeLedger(file, sharedStrings);
      const items: LedgerItem[] = [];
      const above: string[] = [];
      for await (const item of readLedger(file, settings(), { onAboveHeader: (_, raw) => above.push(raw) })) {
        items.push(item);
      }
      expect(above).toEqual(['["Relatório de vendas — março"]']);
      expect(items).toHaveLength(rows);
      const wrong: string[] = [];
      const shown = (item: LedgerItem) => item.reject?.raw ?? item.row?.partner_reference;
      items.forEach((item, i) => {
        const line = i + 3;
        if (rejected(i)) {
          const raw = item.reject ? (JSON.parse(item.reject.raw) as unknown[]) : [];
          if (item.reject?.source_line !== line || raw[0] !== referenceOf(i) || raw[7] !== noteOf(i)) {
            wrong.push(`row ${line}: ${shown(item)}`);
          }
        } else if (item.row?.partner_reference !== referenceOf(i) || item.row.source_line !== line) {
          wrong.push(`row ${line}: ${shown(item)}`);
        }
      });
      expect(wrong.slice(0, 3)).toEqual([]);
    });
  }
});

const sofficeHere = hasSoffice();
if (!sofficeHere)
  console.warn('skipping the LibreOffice ledger: `soffice` is not installed (apt-get install libreoffice-calc)');

describe.skipIf(!sofficeHere)('XLSX ledger saved by LibreOffice', () => {
  it('reads every reference exact, and paid_at as the date cell LibreOffice made of it', async () => {
    const count = 2_000;
    const csv = path.join(temp.dir, 'ledger-lo.csv');
    const lines = Array.from(
      { length: count },
      (_, i) => `${referenceOf(i)},2101,2025-03-10 10:00:00,10.50,9.25,BRL,paid`,
    );
    writeFileSync(csv, `${header.join(',')}\n${lines.join('\n')}\n`);
    const out = path.join(temp.dir, 'lo');
    const converted = await runSoffice([
      `-env:UserInstallation=file://${path.join(temp.dir, 'lo-profile')}`,
      '--headless',
      // comma-separated, double quotes, UTF-8 (76), from line 1
      '--infilter=CSV:44,34,76,1',
      '--convert-to',
      'xlsx',
      '--outdir',
      out,
      csv,
    ]);
    expect(converted.status, `${converted.stdout}\n${converted.stderr}`).toBe(0);
    const items: LedgerItem[] = [];
    for await (const item of readLedger(path.join(out, 'ledger-lo.xlsx'), settings())) items.push(item);
    expect(items.flatMap((item) => (item.reject ? [item.reject.reason] : []))).toEqual([]);
    const read = items.map((item) => item.row!);
    expect(read.filter((row, i) => row.partner_reference !== referenceOf(i)).slice(0, 3)).toEqual([]);
    expect(read[0]).toMatchObject({ source_line: 2, paid_local: '2025-03-10 10:00:00', sales_price: '10.5' });
    // A date cell, as exceljs gave it: the raw value is the instant's ISO text, not the serial number.
    expect(read[0]!.paid_at_raw).toBe('2025-03-10T10:00:00.000Z');
  });
});
