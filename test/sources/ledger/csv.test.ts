/** The ledger's CSV reader and value rules: splitting, numbers, dates, headers, encodings, rejects. */
import { closeSync, openSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { brazilianLedger } from '../../../bench/generators/ledger-csv.js';
import { ConfigError } from '../../../core/errors.js';
import { configSchema } from '../../../config/schema.js';
import { CsvSplitter, type CsvRecord } from '../../../sources/ledger/csv.js';
import { createDateParser } from '../../../sources/ledger/dates.js';
import { parseDecimalNumber, parseDecimalText } from '../../../sources/ledger/numbers.js';
import { readLedger } from '../../../sources/ledger/read-ledger.js';
import type { LedgerItem, LedgerReadSettings } from '../../../sources/ledger/types.js';
import { temporaryDirectory } from '../../support/ledger.js';

const temp = temporaryDirectory('ledger-csv');
afterAll(() => temp.remove());

function split(text: string, chunkSize = text.length, delimiter = ',', quote = '"'): CsvRecord[] {
  const splitter = new CsvSplitter(delimiter, quote);
  const records: CsvRecord[] = [];
  for (let i = 0; i < text.length; i += chunkSize) records.push(...splitter.push(text.slice(i, i + chunkSize)));
  records.push(...splitter.end());
  return records;
}

function settings(ledger: Record<string, unknown> = {}): LedgerReadSettings {
  return { ...configSchema.parse({ ledger }).ledger, format: 'csv' };
}

async function readAll(file: string, s: LedgerReadSettings): Promise<LedgerItem[]> {
  const items: LedgerItem[] = [];
  for await (const item of readLedger(file, s)) items.push(item);
  return items;
}

describe('CSV splitting (RFC 4180)', () => {
  const text = 'a,b,c\r\n1,"x, y",3\n2,"say ""hi""",4\n3,"two\nlines\r\nthree",5\n4,,\n"5",e,"f"';

  it('handles quoted delimiters, doubled quotes, line breaks inside quotes and CRLF', () => {
    const records = split(text);
    expect(records.map((r) => r.fields)).toEqual([
      ['a', 'b', 'c'],
      ['1', 'x, y', '3'],
      ['2', 'say "hi"', '4'],
      ['3', 'two\nlines\r\nthree', '5'],
      ['4', '', ''],
      ['5', 'e', 'f'],
    ]);
    // A record's line is the physical line where it starts.
    expect(records.map((r) => r.line)).toEqual([1, 2, 3, 4, 7, 8]);
    expect(records[3]!.raw).toBe('3,"two\nlines\r\nthree",5');
  });

  it('gives the same records whatever the chunk boundaries', () => {
    const whole = split(text);
    for (const size of [1, 2, 3, 5, 7]) expect(split(text, size)).toEqual(whole);
  });

  it('reports an unterminated quote on its line and reads the following lines on their own', () => {
    const records = split('h1,h2\n1,"open\n2,b\n3,c\n');
    expect(records.map((r) => [r.line, r.error ? 'error' : r.fields.join('|')])).toEqual([
      [1, 'h1|h2'],
      [2, 'error'],
      [3, '2|b'],
      [4, '3|c'],
    ]);
    expect(records[1]!.error).toMatch(/unterminated quoted field/);
  });

  it('rejects text after a closing quote', () => {
    const [, bad, next] = split('h\n"abc"x,1\nok\n');
    expect(bad!.error).toMatch(/after a closing "/);
    expect(bad!.line).toBe(2);
    expect(next).toMatchObject({ line: 3, fields: ['ok'] });
  });

  it('uses the configured delimiter and quote', () => {
    expect(split("a;'b;c';d\n", undefined, ';', "'")[0]!.fields).toEqual(['a', 'b;c', 'd']);
    expect(split('a\tb\n', undefined, '\t')[0]!.fields).toEqual(['a', 'b']);
  });
});

describe('numbers', () => {
  it('reads decimal point and decimal comma with their thousands separators, exactly', () => {
    expect(parseDecimalText('1,234.56', '.').value).toBe('1234.56');
    expect(parseDecimalText('1.234,56', ',').value).toBe('1234.56');
    expect(parseDecimalText('-2.000.000,1234', ',').value).toBe('-2000000.1234');
    expect(parseDecimalText(' 1 234,5 ', ',').value).toBe('1234.5');
    expect(parseDecimalText('0012.5000', '.').value).toBe('12.5');
    expect(parseDecimalText('99,90', ',').value).toBe('99.9');
    expect(parseDecimalText('-0,00', ',').value).toBe('0');
  });

  it("reads amounts as spreadsheets export them: currency symbol or code, accountants' parentheses", () => {
    expect(parseDecimalText('R$ 1.234,56', ',').value).toBe('1234.56');
    expect(parseDecimalText('R$10,30', ',').value).toBe('10.3');
    expect(parseDecimalText('10,30 BRL', ',').value).toBe('10.3');
    expect(parseDecimalText('US$ 49.90', '.').value).toBe('49.9');
    expect(parseDecimalText('(5.00)', '.').value).toBe('-5');
    expect(parseDecimalText('R$ (5,00)', ',').value).toBe('-5');
  });

  it('rejects malformed and ambiguous numbers with a reason', () => {
    expect(parseDecimalText('12.5', ',').error).toMatch(/malformed number "12.5".*1\.234,56/);
    expect(parseDecimalText('1,23', '.').error).toMatch(/malformed/);
    expect(parseDecimalText('1.234', ',').error).toMatch(/ambiguous number "1.234".*1234.*1\.234/);
    expect(parseDecimalText('1,234', '.').error).toMatch(/ambiguous/);
    expect(parseDecimalText('1.234.567', ',').value).toBe('1234567');
    expect(parseDecimalText('1,5,3', ',').error).toMatch(/malformed/);
    expect(parseDecimalText('R$', ',').error).toMatch(/malformed/);
    expect(parseDecimalText('10,00 R$ 5', ',').error).toMatch(/malformed/);
    expect(parseDecimalText('1.23456', '.').error).toMatch(/more than 4 decimals/);
    expect(parseDecimalText('123456789012345', '.').error).toMatch(/too large/);
  });

  it('reads binary numbers at spreadsheet precision and refuses what a float cannot hold', () => {
    expect(parseDecimalNumber(10.1 * 3, true).value).toBe('30.3');
    expect(parseDecimalNumber(12.34, false).value).toBe('12.34');
    expect(parseDecimalNumber(0.1 + 0.2, false).error).toMatch(/significant digits/);
    expect(parseDecimalNumber(Number.NaN, false).error).toMatch(/finite/);
  });
});

describe('dates', () => {
  it('reads the configured format, its date alone, and ISO 8601 with or without offset', () => {
    const parse = createDateParser('dd/MM/yyyy HH:mm:ss');
    expect(parse('05/03/2024 10:15:00').value).toEqual({ local: '2024-03-05 10:15:00' });
    expect(parse('05/03/2024').value).toEqual({ local: '2024-03-05 00:00:00' });
    expect(parse('2024-03-05T10:15:00.250-03:00').value).toEqual({ instant: '2024-03-05 10:15:00.25-03:00' });
    expect(parse('2024-03-05 10:15:00Z').value).toEqual({ instant: '2024-03-05 10:15:00+00:00' });
    expect(parse('2024-03-05').value).toEqual({ local: '2024-03-05 00:00:00' });
    expect(parse('31/02/2024').error).toMatch(/not a calendar date/);
    expect(parse('03-05-2024').error).toMatch(/not a date in the format dd\/MM\/yyyy HH:mm:ss/);
  });

  it('reads the date-times and dropped leading zeros an export writes under a date-only format', () => {
    const parse = createDateParser('dd/MM/yyyy');
    expect(parse('31/01/2026 23:55:00').value).toEqual({ local: '2026-01-31 23:55:00' });
    expect(parse('31/01/2026 23:55').value).toEqual({ local: '2026-01-31 23:55:00' });
    expect(parse('1/2/2026').value).toEqual({ local: '2026-02-01 00:00:00' });
    expect(parse('31/01/2026 25:00').error).toMatch(/not a calendar date/);
    // Without separators the digits are positional: no leniency.
    expect(createDateParser('yyyyMMdd')('2026131').error).toMatch(/not a date in the format yyyyMMdd/);
  });

  it('falls back to date-fns for other tokens', () => {
    const parse = createDateParser('d MMM yyyy');
    expect(parse('5 Mar 2024').value).toEqual({ local: '2024-03-05 00:00:00' });
    expect(parse('5 Foo 2024').error).toBeDefined();
  });
});

describe('reading a CSV ledger', () => {
  const brazilian = [
    'Pedido;Produto;Pago em;Valor venda;Custo esperado;Moeda;País;Situação',
    'PED-0001;101;05/03/2024 10:15:00;1.234,56;1.100,00;BRL;BR;Pago',
    '"PED;0002";102;06/03/2024;99,90;80,00;BRL;BR;Cancelado',
    'PED-0003;103;31/02/2024;10,00;8,00;BRL;BR;Pago',
    'PED-0004;abc;06/03/2024;10,00;8,00;BRL;BR;Pago',
    'PED-0005;105;06/03/2024;10.5;8,00;BRL;BR;Pago',
    '',
    'PED-0006;106;06/03/2024;1.234;8,00;BRL;BR;Pago',
    'PED-0007;107;06/03/2024;10,00;8,00;BRL',
    '"PED-0008 ""São Paulo""";108;07/03/2024 23:59:59;2.000.000,1234;1,5;brl;;Estornado',
    'PED-0009;109;07/03/2024;5,00;4,00;BRL;BR;Em análise',
    '"PED-0010 multi',
    'line";110;08/03/2024;5,00;4,00;BRL;BR;pago',
  ].join('\r\n');
  const brazilianSettings = settings(brazilianLedger);

  it(
    'reads the Brazilian export (Latin-1, ";", decimal ' + 'comma, Portuguese headers) and rejects its bad lines',
    async () => {
      const file = path.join(temp.dir, 'brazil.csv');
      writeFileSync(file, Buffer.from(brazilian, 'latin1'));
      const items = await readAll(file, brazilianSettings);
      const accepted = items.flatMap((i) => (i.row ? [i.row] : []));
      const rejects = items.flatMap((i) => (i.reject ? [i.reject] : []));
      expect(accepted.map((r) => r.source_line)).toEqual([2, 3, 10, 12]);
      expect(accepted[0]).toMatchObject({
        partner_reference: 'PED-0001',
        product_id: 101n,
        paid_local: '2024-03-05 10:15:00',
        sales_price: '1234.56',
        expected_cost: '1100',
        currency_code: 'BRL',
        country_code: 'BR',
        order_status: 'paid',
      });
      expect(accepted[1]).toMatchObject({
        partner_reference: 'PED;0002',
        paid_local: '2024-03-06 00:00:00',
        order_status: 'canceled',
      });
      expect(accepted[2]).toMatchObject({
        partner_reference: 'PED-0008 "São Paulo"',
        sales_price: '2000000.1234',
        expected_cost: '1.5',
        currency_code: 'BRL',
        country_code: null,
        order_status: 'refunded',
      });
      expect(accepted[3]).toMatchObject({ partner_reference: 'PED-0010 multi\r\nline', source_line: 12 });
      expect(rejects.map((r) => [r.source_line, r.reason])).toEqual([
        [4, 'paid_at: "31/02/2024" is not a calendar date and time'],
        [5, 'product_id: "abc" is not a positive whole number'],
        [6, expect.stringMatching(/^sales_price: malformed number "10.5"/)],
        [7, 'blank line'],
        [8, expect.stringMatching(/^sales_price: ambiguous number "1.234"/)],
        [9, 'expected 8 fields separated by ";", found 6'],
        [11, 'order_status: "Em análise" is not paid, refunded or canceled'],
      ]);
      expect(rejects[0]!.raw).toBe('PED-0003;103;31/02/2024;10,00;8,00;BRL;BR;Pago');
      // Every data line after the header is either accepted or rejected (the multi-line record is one).
      expect(accepted.length + rejects.length).toBe(brazilian.split('\r\n').length - 2);
    },
  );

  it('names all problems of a line at once', async () => {
    const file = path.join(temp.dir, 'many.csv');
    writeFileSync(
      file,
      'partner_reference,product_id,paid_at,sales_price,expected_cost,currency_code,order_status\n ,' +
        '0,yesterday,x,1,R$,maybe\n',
    );
    const [item] = await readAll(file, settings());
    expect(item!.reject!.reason).toBe(
      'partner_reference: missing; product_id: "0" is not a positive whole number; paid_at: ' +
        '"yesterday" is not a date in the format yyyy-MM-dd (ledger.dateFormat) nor ISO 8601; ' +
        'sales_price: malformed number "x": expected a number like 1,234.56 (decimal separator ".", ' +
        'ledger.decimalSeparator); currency_code: "R$" is not an ISO 4217 currency code (3 letters); ' +
        'order_status: "maybe" is not paid, refunded or canceled',
    );
  });

  it('matches canonical headers whatever their case, spacing and accents, and drops a UTF-8 BOM', async () => {
    const file = path.join(temp.dir, 'bom.csv');
    const text =
      'Partner Reference,PRODUCT_ID,Paid At,sales-price,Expected Cost,Currency Code,Order Status,Ign' +
      'ored\nR-1,7,2024-03-05,10.00,9.5,usd,PAID,x\n';
    writeFileSync(file, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text, 'utf8')]));
    const items = await readAll(file, settings({ encoding: 'latin1' }));
    expect(items).toEqual([
      {
        row: expect.objectContaining({
          partner_reference: 'R-1',
          product_id: 7n,
          sales_price: '10',
          expected_cost: '9.5',
          currency_code: 'USD',
          order_status: 'paid',
          country_code: null,
        }),
      },
    ]);
  });

  it('says which column is missing and which headers it found (a config matter)', async () => {
    const file = path.join(temp.dir, 'missing.csv');
    writeFileSync(file, Buffer.from(brazilian, 'latin1'));
    const { columns: _ignored, ...withoutMapping } = brazilianSettings;
    const error = await readAll(file, { ...withoutMapping, columns: { paid_at: 'Pago em' } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toMatch(/no column for partner_reference/);
    // Issue 34: counted, never quoted: a ledger's content does not go into a message.
    expect((error as ConfigError).message).toMatch(/The header row has 8 columns \(not quoted/);
    expect((error as ConfigError).message).not.toMatch(/Pedido|Produto/);
    expect((error as ConfigError).key).toBe('ledger.columns.partner_reference');
  });

  it('flags Latin-1 bytes read as UTF-8 instead of storing garbage', async () => {
    const file = path.join(temp.dir, 'latin-as-utf8.csv');
    writeFileSync(
      file,
      Buffer.from(
        'partner_reference,product_id,paid_at,sales_price,expected_cost,currency_code,order_status\n' +
          'SÃO-1,1,2024-03-05,1,1,BRL,paid\n',
        'latin1',
      ),
    );
    const [item] = await readAll(file, settings());
    expect(item!.reject!.reason).toMatch(/not UTF-8.*--encoding/);
  });

  it('decodes Windows-1252 (bytes Latin-1 lacks, like € and curly quotes)', async () => {
    const file = path.join(temp.dir, 'cp1252.csv');
    const head = Buffer.from(
      'partner_reference,product_id,paid_at,sales_price,expected_cost,currency_code,order_status\n',
      'latin1',
    );
    // 0x80 is € and 0x93/0x94 are “ ” in Windows-1252; 0xE7 is ç in both.
    const line = Buffer.concat([
      Buffer.from([0x80, 0x93]),
      Buffer.from('Pedido a', 'latin1'),
      Buffer.from([0xe7, 0x94]),
      Buffer.from(',1,2024-03-05,1,1,EUR,paid\n', 'latin1'),
    ]);
    writeFileSync(file, Buffer.concat([head, line]));
    const [item] = await readAll(file, settings({ encoding: 'windows-1252' }));
    expect(item!.row!.partner_reference).toBe('€“Pedido aç”');
  });

  it(
    'finds the header below a title line; lines above it ' + 'are skipped, not counted, and blank lines stay rejects',
    async () => {
      const file = path.join(temp.dir, 'title.csv');
      const head = 'partner_reference;product_id;paid_at;sales_price;expected_cost;currency_code;order_status';
      writeFileSync(
        file,
        [
          'Razão do parceiro — março de 2025;;;;;;',
          '',
          head,
          'R-1;1;2024-03-05;1;1;BRL;paid',
          'R-2;2;2024-03-05;x;1;BRL;paid',
          '',
        ].join('\n'),
      );
      const skipped: number[] = [];
      const items: LedgerItem[] = [];
      for await (const item of readLedger(file, settings({ delimiter: ';' }), {
        onAboveHeader: (line) => skipped.push(line),
      }))
        items.push(item);
      expect(skipped).toEqual([1]);
      expect(
        items.map((i) =>
          i.row ? [i.row.source_line, 'row'] : [i.reject!.source_line, i.reject!.reason.replace(/:.*/, '')],
        ),
      ).toEqual([
        [2, 'blank line'],
        [4, 'row'],
        [5, 'sales_price'],
      ]);
    },
  );

  it(
    'rejects a line of only separators (the trailing ;;;;;; ' +
      'of Excel) as an empty line, not as seven missing columns',
    async () => {
      const file = path.join(temp.dir, 'separators.csv');
      const head = 'partner_reference;product_id;paid_at;sales_price;expected_cost;currency_code;order_status';
      writeFileSync(file, [head, 'R-1;1;2024-03-05;1;1;BRL;paid', ';;;;;;', ';;;;;;;', ' ; ;"";;;;', ''].join('\r\n'));
      const items = await readAll(file, settings({ delimiter: ';' }));
      expect(
        items.map((i) => (i.row ? [i.row.source_line, 'row'] : [i.reject!.source_line, i.reject!.reason])),
      ).toEqual([
        [2, 'row'],
        [3, 'empty line (only separators)'],
        [4, 'empty line (only separators)'],
        [5, 'empty line (only separators)'],
      ]);
    },
  );

  it('refuses a typo in ledger.columns', async () => {
    const file = path.join(temp.dir, 'typo.csv');
    writeFileSync(file, 'a\n1\n');
    await expect(readAll(file, settings({ columns: { partner_ref: 'a' } }))).rejects.toThrow(
      /ledger.columns.partner_ref: "partner_ref" is not a ledger column/,
    );
  });
});

describe('hostile CSV', () => {
  const head = 'partner_reference,product_id,paid_at,sales_price,expected_cost,currency_code,order_status';
  const summary = (items: LedgerItem[]) =>
    items.map((i) =>
      i.row ? [i.row.source_line, 'row'] : [i.reject!.source_line, i.reject!.reason.replace(/ \(.*/, '')],
    );

  it('rejects a 100 MB line once it passes the limit, keeping only its start, and reads on after it', async () => {
    const file = path.join(temp.dir, 'huge-line.csv');
    const descriptor = openSync(file, 'w');
    writeSync(descriptor, `${head}\nR-1,1,2024-03-05,1,1,BRL,paid\nR-2,`);
    const block = Buffer.alloc(1024 * 1024, 'x');
    for (let i = 0; i < 100; i++) writeSync(descriptor, block);
    writeSync(descriptor, '\nR-3,1,2024-03-05,1,1,BRL,paid\n');
    closeSync(descriptor);
    const items = await readAll(file, settings());
    rmSync(file);
    expect(summary(items)).toEqual([
      [2, 'row'],
      [3, 'line longer than 1,048,576 characters'],
      [4, 'row'],
    ]);
    const raw = items[1]!.reject!.raw;
    expect(raw.length).toBeLessThanOrEqual(32_767);
    expect(raw.startsWith('R-2,xxxx')).toBe(true);
  });

  it('reads a file whose lines end with a lone CR (old Mac) line by line', async () => {
    const file = path.join(temp.dir, 'cr-only.csv');
    writeFileSync(
      file,
      [
        head,
        'R-1,1,2024-03-05,1,1,BRL,paid',
        'R-2,1,2024-03-05,x,1,BRL,paid',
        'R-3,1,2024-03-05,1,1,BRL,paid',
        '',
      ].join('\r'),
    );
    expect(summary(await readAll(file, settings()))).toEqual([
      [2, 'row'],
      [3, 'sales_price: malformed number "x": expected a number like 1,234.56'],
      [4, 'row'],
    ]);
  });

  it('keeps a rejected line up to the 32,767 characters of an Excel cell, saying it was cut', async () => {
    const file = path.join(temp.dir, 'long-reject.csv');
    writeFileSync(file, `${head}\nR-1,${'y'.repeat(40_000)}\n`);
    const [item] = await readAll(file, settings());
    expect(item!.reject!.raw).toHaveLength(32_767);
    expect(item!.reject!.raw).toMatch(/… \(cut: 40004 characters\)$/);
  });
});
