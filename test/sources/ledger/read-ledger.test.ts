/** The ledger's other formats: XLSX (typed cells, sheet choice), JSON array, NDJSON, Parquet. */
import { readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import ExcelJS from 'exceljs';
import { afterAll, describe, expect, it } from 'vitest';
import { brazilianColumns as columns } from '../../../bench/generators/ledger-csv.js';
import { ConfigError, JobError } from '../../../core/errors.js';
import { configSchema } from '../../../config/schema.js';
import { readLedger } from '../../../sources/ledger/read-ledger.js';
import type { LedgerFormat, LedgerItem, LedgerReadSettings } from '../../../sources/ledger/types.js';
import { formatFromExtension } from '../../../sources/ledger/types.js';
import { temporaryDirectory } from '../../support/ledger.js';

const temp = temporaryDirectory('ledger-formats');
afterAll(() => temp.remove());

function settings(format: LedgerFormat, ledger: Record<string, unknown> = {}): LedgerReadSettings {
  return { ...configSchema.parse({ ledger }).ledger, format };
}

async function readAll(file: string, s: LedgerReadSettings, instance?: DuckDBInstance): Promise<LedgerItem[]> {
  const connection = instance ? await instance.connect() : undefined;
  try {
    const items: LedgerItem[] = [];
    for await (const item of readLedger(file, s, { connection })) items.push(item);
    return items;
  } finally {
    connection?.closeSync();
  }
}

const rowsOf = (items: LedgerItem[]) => items.flatMap((i) => (i.row ? [i.row] : []));
const rejectsOf = (items: LedgerItem[]) => items.flatMap((i) => (i.reject ? [i.reject] : []));

it('tells the format from the extension', () => {
  expect(
    ['a.csv', 'a.TSV', 'a.txt', 'a.xlsx', 'a.json', 'a.ndjson', 'a.jsonl', 'a.parquet'].map(formatFromExtension),
  ).toEqual(['csv', 'csv', 'csv', 'xlsx', 'json', 'ndjson', 'ndjson', 'parquet']);
  expect(() => formatFromExtension('ledger.xls')).toThrow(/--format csv\|xlsx\|json\|ndjson\|parquet/);
});

describe('XLSX', () => {
  async function writeWorkbook(file: string): Promise<void> {
    const workbook = new ExcelJS.Workbook();
    const notes = workbook.addWorksheet('Notes');
    notes.addRow(['exported by finance']);
    const sheet = workbook.addWorksheet('Vendas');
    sheet.addRow(['Pedido', 'Produto', 'Pago em', 'Valor venda', 'Custo esperado', 'Moeda', 'País', 'Situação']);
    sheet.addRow([
      { richText: [{ text: 'PED-' }, { text: '1' }] },
      101,
      new Date(Date.UTC(2024, 2, 5, 10, 15)),
      1234.56,
      { formula: 'D2*0.9', result: 10.1 * 3 },
      'BRL',
      'BR',
      'Pago',
    ]);
    sheet.addRow([]);
    sheet.addRow(['PED-2', 102, '06/03/2024', '99.90', 80, 'BRL', null, 'refunded']);
    sheet.addRow(['PED-3', 'x', new Date(Date.UTC(2024, 2, 7)), 10, 8, 'BRL', 'BR', 'paid']);
    sheet.addRow(['PED-4', 104, 20240305, 10, 8, 'BRL', 'BR', 'paid']);
    sheet.getCell('C2').numFmt = 'dd/mm/yyyy hh:mm';
    sheet.getCell('C5').numFmt = 'dd/mm/yyyy';
    await workbook.xlsx.writeFile(file);
  }

  it('reads the named sheet with real dates, numbers, formulas, rich text and text cells', async () => {
    const file = path.join(temp.dir, 'ledger.xlsx');
    await writeWorkbook(file);
    const items = await readAll(file, settings('xlsx', { sheet: 'Vendas', columns, dateFormat: 'dd/MM/yyyy' }));
    expect(rowsOf(items)).toEqual([
      expect.objectContaining({
        source_line: 2,
        partner_reference: 'PED-1',
        product_id: 101n,
        paid_local: '2024-03-05 10:15:00',
        sales_price: '1234.56',
        expected_cost: '30.3',
        order_status: 'paid',
      }),
      expect.objectContaining({
        source_line: 4,
        partner_reference: 'PED-2',
        paid_local: '2024-03-06 00:00:00',
        sales_price: '99.9',
        expected_cost: '80',
        country_code: null,
        order_status: 'refunded',
      }),
    ]);
    expect(rejectsOf(items).map((r) => [r.source_line, r.reason])).toEqual([
      [5, 'product_id: "x" is not a positive whole number'],
      [
        6,
        'paid_at: 20240305 is not a date (a number in an XLSX date cell is read as an Excel date serial only from ' +
          '1990 to 2100)',
      ],
    ]);
  });

  it(
    'reads a workbook as exceljs stores it (sheets before the ' +
      'workbook part) alike every time, with no temporary file',
    async () => {
      // exceljs's streaming reader parked such sheets in temporary files: 1 read in ~50 lost the sheet list, and a
      // sheet skipped unread (Notes, here) had its file opened after it was deleted, ending the process.
      const file = path.join(temp.dir, 'ledger-again.xlsx');
      await writeWorkbook(file);
      const parked = () => readdirSync(tmpdir()).filter((name) => name.startsWith(`tmp-${process.pid}-`));
      const before = parked();
      const vendas = settings('xlsx', { sheet: 'Vendas', columns, dateFormat: 'dd/MM/yyyy' });
      const first = await readAll(file, vendas);
      expect(rowsOf(first).map((r) => r.partner_reference)).toEqual(['PED-1', 'PED-2']);
      for (let read = 0; read < 60; read++) expect(await readAll(file, vendas)).toEqual(first);
      expect(parked()).toEqual(before);
    },
  );

  it('reads the first sheet by default and names the sheets when the configured one is absent', async () => {
    const file = path.join(temp.dir, 'ledger2.xlsx');
    await writeWorkbook(file);
    const firstSheet = (await readAll(file, settings('xlsx', { columns })).catch((e: unknown) => e)) as ConfigError;
    expect(firstSheet).toBeInstanceOf(ConfigError);
    expect(firstSheet.message).toMatch(
      new RegExp(
        /ledger2.xlsx: no column for partner_reference.*The header row has 1 column \(not /.source +
          /quoted.* if the ledger is on another sheet \(the first sheet was read; sheets found: /.source +
          /"Notes", "Vendas"\), set ledger.sheet or pass --sheet\.$/.source,
      ),
    );
    expect(firstSheet.message).not.toMatch(/delimiter/);
    await expect(readAll(file, settings('xlsx', { sheet: 'Ledger', columns }))).rejects.toThrow(
      /no sheet named "Ledger" \(ledger.sheet\); sheets found: "Notes", "Vendas"/,
    );
  });
});

describe('files that are not what their extension says', () => {
  const write = (name: string, content: string | Buffer) => {
    const file = path.join(temp.dir, name);
    writeFileSync(file, content);
    return file;
  };
  async function failure(file: string, format: LedgerFormat): Promise<JobError> {
    const instance =
      format === 'parquet'
        ? await DuckDBInstance.create(':memory:', {
            autoinstall_known_extensions: 'false',
            autoload_known_extensions: 'false',
          })
        : undefined;
    try {
      const error = (await readAll(file, settings(format), instance).catch((e: unknown) => e)) as JobError;
      expect(error).toBeInstanceOf(JobError);
      return error;
    } finally {
      instance?.closeSync();
    }
  }

  it('names the file, what is wrong and what to do for a fake, legacy or truncated XLSX', async () => {
    const fake = await failure(write('fake.xlsx', 'garbage, not a workbook\n'), 'xlsx');
    expect(fake.message).toMatch(
      new RegExp(
        /fake.xlsx is not an XLSX workbook \(an .xlsx file is a ZIP archive; it starts with the /.source +
          /text "garbage, not a w…"\)/.source,
      ),
    );
    expect(fake.hint).toMatch(/Excel Workbook \(.xlsx\).*--format/);
    const legacy = await failure(
      write('old.xlsx', Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1, 0, 0])),
      'xlsx',
    );
    expect(legacy.message).toMatch(
      /old.xlsx is not an XLSX workbook: it is an Excel 97-2003 \(.xls\) file or a password-protected workbook/,
    );
    const truncated = await failure(
      write('cut.xlsx', Buffer.concat([Buffer.from('PK\x03\x04', 'latin1'), Buffer.alloc(40, 1)])),
      'xlsx',
    );
    expect(truncated.message).toMatch(/cut.xlsx could not be read as an XLSX workbook: it looks damaged or truncated/);
  });

  it(
    'names the file, what is wrong and what to do for a ' + 'fake or truncated Parquet file, without DuckDB SQL',
    async () => {
      const fake = await failure(write('fake.parquet', 'garbage, not parquet'), 'parquet');
      expect(fake.message).toMatch(
        new RegExp(
          /fake.parquet is not a Parquet file \(a Parquet file starts with "PAR1"; it starts with /.source +
            /the text "garbage, not par…"\)/.source,
        ),
      );
      expect(fake.hint).toMatch(/--format/);
      const cut = await failure(write('cut.parquet', 'PAR1 and then the file stops'), 'parquet');
      expect(cut.message).toMatch(
        /cut.parquet is not a Parquet file \(it does not end with the Parquet mark "PAR1": the file is truncated\)/,
      );
      const damaged = await failure(write('damaged.parquet', 'PAR1 garbage in the middle PAR1'), 'parquet');
      expect(damaged.message).toMatch(
        /damaged.parquet could not be read as a Parquet file: it looks damaged or truncated/,
      );
      expect(damaged.message).not.toMatch(/LINE 1|read_parquet/);
    },
  );
});

describe('JSON', () => {
  it('reads an array of objects, each located by its ordinal (record N), and rejects bad elements', async () => {
    const file = path.join(temp.dir, 'ledger.json');
    const good = {
      partner_reference: 'R-1',
      product_id: 1,
      paid_at: '2024-03-05T10:00:00-03:00',
      sales_price: 12.34,
      expected_cost: '10.5',
      currency_code: 'BRL',
      order_status: 'paid',
    };
    writeFileSync(
      file,
      `[\n${JSON.stringify(good, null, 2)},\n  5,\n  ` +
        '{"partner_reference": "R-3", "product_id": 3, "paid_at": "later", "sales_price": 1, "expected_cost": 1, ' +
        '"currency_code": "BRL", "order_status": "paid"},\n  ' +
        '{"partner_reference": "R-]4", "product_id": "4", "paid_at": "2024-03-06", "sales_price": "0.5", ' +
        '"expected_cost": 0.1, "currency_code": "BRL", "order_status": "canceled", "extra": {"nested": [1, 2]}}\n]\n',
    );
    const items = await readAll(file, settings('json'));
    expect(rowsOf(items)).toEqual([
      expect.objectContaining({
        source_line: 1,
        partner_reference: 'R-1',
        paid_instant: '2024-03-05 10:00:00-03:00',
        sales_price: '12.34',
        expected_cost: '10.5',
      }),
      expect.objectContaining({ source_line: 4, partner_reference: 'R-]4', product_id: 4n, order_status: 'canceled' }),
    ]);
    expect(rejectsOf(items).map((r) => [r.source_line, r.reason])).toEqual([
      [2, 'not a JSON object'],
      [3, expect.stringMatching(/^paid_at: "later" is not a date/)],
    ]);
  });

  it('refuses a file that is not an array, pointing to NDJSON', async () => {
    const file = path.join(temp.dir, 'object.json');
    writeFileSync(file, '{"partner_reference": "R-1"}\n');
    const error = (await readAll(file, settings('json')).catch((e: unknown) => e)) as JobError;
    expect(error).toBeInstanceOf(JobError);
    expect(error.message).toMatch(
      /object.json:1: a .json ledger must be an array of objects, found \{ instead of "\["/,
    );
    expect(error.hint).toMatch(/--format ndjson/);
  });

  it(
    'reads NDJSON: one object per line; bad JSON, blank ' + 'lines and non-objects are rejects with their line',
    async () => {
      const file = path.join(temp.dir, 'ledger.ndjson');
      const line = (reference: string) =>
        JSON.stringify({
          partner_reference: reference,
          product_id: 1,
          paid_at: '2024-03-05',
          sales_price: '1.00',
          expected_cost: '1.00',
          currency_code: 'BRL',
          order_status: 'paid',
        });
      writeFileSync(file, [line('A'), '{"partner_reference": "B",', '', '[1,2]', line('C')].join('\n'));
      const items = await readAll(file, settings('ndjson'));
      expect(rowsOf(items).map((r) => [r.source_line, r.partner_reference])).toEqual([
        [1, 'A'],
        [5, 'C'],
      ]);
      expect(rejectsOf(items).map((r) => [r.source_line, r.reason.replace(/:.*/, '')])).toEqual([
        [2, 'not valid JSON'],
        [3, 'blank line'],
        [4, 'not a JSON object'],
      ]);
    },
  );
});

describe('Parquet', () => {
  it('reads typed columns exactly (DECIMAL, TIMESTAMPTZ, DATE, DOUBLE) with row numbers as lines', async () => {
    const file = path.join(temp.dir, 'ledger.parquet');
    const instance = await DuckDBInstance.create(':memory:', {
      autoinstall_known_extensions: 'false',
      autoload_known_extensions: 'false',
    });
    try {
      const connection = await instance.connect();
      await connection.run(`COPY (
        SELECT * FROM (VALUES
          ('R-1', 1::INTEGER, TIMESTAMPTZ '2024-03-05 10:00:00+00', 123456789012.3456::DECIMAL(18,4), 10.1 * 3, 'BRL',
            'BR', 'paid'),
          ('R-2', 2::INTEGER, TIMESTAMPTZ '2024-03-06 00:00:00+00', 1::DECIMAL(18,4), 1.5, NULL, 'BR', 'paid'),
          ('R-3', 3::INTEGER, TIMESTAMPTZ '2024-03-07 00:00:00+00', 2::DECIMAL(18,4), 2.25, 'USD', NULL, 'Refunded')
        ) AS t(partner_reference, product_id, paid_at, sales_price, expected_cost, currency_code, country_code,
          order_status)
      ) TO '${file}' (FORMAT parquet)`);
      connection.closeSync();
      const items = await readAll(file, settings('parquet'), instance);
      expect(rowsOf(items)).toEqual([
        expect.objectContaining({
          source_line: 1,
          partner_reference: 'R-1',
          product_id: 1n,
          sales_price: '123456789012.3456',
          expected_cost: '30.3',
        }),
        expect.objectContaining({
          source_line: 3,
          partner_reference: 'R-3',
          sales_price: '2',
          expected_cost: '2.25',
          order_status: 'refunded',
          country_code: null,
        }),
      ]);
      expect(rowsOf(items)[0]!.paid_instant ?? rowsOf(items)[0]!.paid_local).toMatch(/^2024-03-05 /);
      expect(rejectsOf(items)).toEqual([
        { source_line: 2, reason: 'currency_code: missing', raw: expect.stringContaining('"partner_reference":"R-2"') },
      ]);
    } finally {
      instance.closeSync();
    }
  });
});
