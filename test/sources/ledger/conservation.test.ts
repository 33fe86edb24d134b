/**
 * Nothing lost, as a property: for generated CSV files (any delimiter, decimal separator, encoding, BOM,
 * line ending, quoted fields spanning lines) with random bad lines, every data line is either accepted or
 * rejected, the good ones are exactly the accepted ones, and each reject points at a bad line's start.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { configSchema } from '../../../config/schema.js';
import { importLedger } from '../../../pipelines/ledger/import.js';
import { readLedger } from '../../../sources/ledger/read-ledger.js';
import type { LedgerReadSettings } from '../../../sources/ledger/types.js';
import { capturedOutput, openWarehouse, temporaryDirectory, testConfig } from '../../support/ledger.js';

const temp = temporaryDirectory('ledger-property');
afterAll(() => temp.remove());

type Dialect = {
  delimiter: ',' | ';' | '\t' | '|';
  decimal: '.' | ',';
  encoding: 'utf-8' | 'latin1';
  bom: boolean;
  eol: '\n' | '\r\n';
  trailingEol: boolean;
};
type Line = { good: boolean; fields: string[] | null };

const dialect: fc.Arbitrary<Dialect> = fc.record({
  delimiter: fc.constantFrom(',', ';', '\t', '|'),
  decimal: fc.constantFrom('.', ','),
  encoding: fc.constantFrom('utf-8', 'latin1'),
  bom: fc.boolean(),
  eol: fc.constantFrom('\n', '\r\n'),
  trailingEol: fc.boolean(),
});

const reference = fc.oneof(
  fc.stringMatching(/^[A-Z]{2}-\d{1,6}$/),
  fc.constantFrom('São Paulo #1', 'pedido, "urgente"', 'linha\numa', 'x;y|z\tw', 'Çà ç 2'),
);

/** The fields of a good line (money as numbers, written in the dialect later). */
const goodFields = fc.record({
  reference,
  product: fc.integer({ min: 1, max: 99999 }),
  day: fc.integer({ min: 1, max: 28 }),
  price: fc.integer({ min: 0, max: 99_999_999 }),
  cost: fc.integer({ min: 0, max: 99_999_999 }),
  status: fc.constantFrom('paid', 'Refunded', 'CANCELED', 'cancelled', 'Pago'),
});

const badKinds = [
  'blank',
  'too-few',
  'too-many',
  'bad-number',
  'bad-date',
  'bad-status',
  'bad-currency',
  'no-reference',
  'bad-product',
] as const;

/** Cents written in the dialect, with thousands separators (a field holding the delimiter gets quoted). */
function money(cents: number, d: Dialect): string {
  const whole = Math.floor(cents / 100)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, d.decimal === '.' ? ',' : '.');
  return `${whole}${d.decimal}${String(cents % 100).padStart(2, '0')}`;
}

function quoteField(value: string, d: Dialect): string {
  return /["\n\r]/.test(value) || value.includes(d.delimiter) ? `"${value.replace(/"/g, '""')}"` : value;
}

type GoodFields = { reference: string; product: number; day: number; price: number; cost: number; status: string };
type LineSpec = { kind: 'good' | (typeof badKinds)[number]; fields: GoodFields };

const lineSpec: fc.Arbitrary<LineSpec> = fc.oneof(
  { weight: 3, arbitrary: goodFields.map((fields) => ({ kind: 'good' as const, fields })) },
  {
    weight: 1,
    arbitrary: fc.tuple(fc.constantFrom(...badKinds), goodFields).map(([kind, fields]) => ({ kind, fields })),
  },
);

function render({ kind, fields: f }: LineSpec, d: Dialect): Line {
  const fields = [
    f.reference,
    String(f.product),
    `2024-03-${String(f.day).padStart(2, '0')}`,
    money(f.price, d),
    money(f.cost, d),
    'BRL',
    'BR',
    f.status,
  ];
  switch (kind) {
    case 'good':
      return { good: true, fields };
    case 'blank':
      return { good: false, fields: null };
    case 'too-few':
      return { good: false, fields: fields.slice(0, 5) };
    case 'too-many':
      return { good: false, fields: [...fields, 'extra'] };
    case 'bad-number':
      fields[3] = `${f.price}${d.decimal}12345`;
      return { good: false, fields };
    case 'bad-date':
      fields[2] = `2024-02-${30 + (f.day % 2)}`;
      return { good: false, fields };
    case 'bad-status':
      fields[7] = 'pending';
      return { good: false, fields };
    case 'bad-currency':
      fields[5] = 'R$';
      return { good: false, fields };
    case 'no-reference':
      fields[0] = '  ';
      return { good: false, fields };
    default:
      fields[1] = `${f.product}.5`;
      return { good: false, fields };
  }
}

/** Writes the file; returns it with the 1-based starting line of every good and bad record. */
function writeLedger(
  d: Dialect,
  lines: Line[],
  name: string,
): { file: string; goodLines: number[]; badLines: number[] } {
  const header =
    'partner_reference,product_id,paid_at,sales_price,expected_cost,currency_code,country_code,order_status'
      .split(',')
      .join(d.delimiter);
  const texts = lines.map((l) => (l.fields ? l.fields.map((v) => quoteField(v, d)).join(d.delimiter) : ''));
  const goodLines: number[] = [];
  const badLines: number[] = [];
  let physical = 2;
  texts.forEach((text, i) => {
    (lines[i]!.good ? goodLines : badLines).push(physical);
    physical += text.split('\n').length;
  });
  const lastBlank = lines.length > 0 && lines[lines.length - 1]!.fields === null;
  const body = [header, ...texts].join(d.eol) + (d.trailingEol || lastBlank ? d.eol : '');
  const bytes = d.encoding === 'latin1' ? Buffer.from(body, 'latin1') : Buffer.from(body, 'utf8');
  const file = path.join(temp.dir, name);
  writeFileSync(
    file,
    d.bom && d.encoding === 'utf-8' ? Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), bytes]) : bytes,
  );
  return { file, goodLines, badLines };
}

const generatedFile = fc.tuple(dialect, fc.array(lineSpec, { maxLength: 60 }));

describe('conservation: accepted + rejected = lines', () => {
  it('holds for the reader on generated files with random bad lines', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(generatedFile, async ([d, generated]) => {
        const lines = generated.map((spec) => render(spec, d));
        const { file, goodLines, badLines } = writeLedger(d, lines, `p${n++}.csv`);
        const settings: LedgerReadSettings = {
          ...configSchema.parse({
            ledger: { delimiter: d.delimiter, decimalSeparator: d.decimal, encoding: d.encoding },
          }).ledger,
          format: 'csv',
        };
        const accepted: number[] = [];
        const rejected: number[] = [];
        for await (const item of readLedger(file, settings)) {
          if (item.row) accepted.push(item.row.source_line);
          else rejected.push(item.reject.source_line);
        }
        expect(accepted.length + rejected.length).toBe(lines.length);
        expect(accepted).toEqual(goodLines);
        expect(rejected).toEqual(badLines);
      }),
      { numRuns: 150 },
    );
  });

  it('holds in the database: ledger + ledger_rejects rows = ledger_files.lines, per file', async () => {
    const config = testConfig(temp.dir);
    const warehouse = await openWarehouse(config);
    let n = 0;
    try {
      await fc.assert(
        fc.asyncProperty(generatedFile, async ([d, generated]) => {
          const lines = generated.map((spec) => render(spec, d));
          const { file, goodLines } = writeLedger(d, lines, `db${n++}.csv`);
          config.ledger = {
            ...config.ledger,
            delimiter: d.delimiter,
            decimalSeparator: d.decimal,
            encoding: d.encoding,
          };
          // Random files share references by chance: conservation, not overlap, is the subject here.
          const summary = await importLedger(
            warehouse,
            config,
            file,
            { allowOverlap: true },
            capturedOutput(true).output,
          );
          const stored = await warehouse.one(
            `SELECT (SELECT count(*) FROM ledger WHERE file_hash = $1) AS accepted, (SELECT count(*) FROM ledger_rejects
              WHERE file_hash = $1) AS rejected,
                    (SELECT lines FROM ledger_files WHERE file_hash = $1) AS lines`,
            [summary.fileHash],
          );
          expect(stored).toEqual({
            accepted: String(goodLines.length),
            rejected: String(lines.length - goodLines.length),
            lines: String(lines.length),
          });
          expect(summary.lines).toBe(lines.length);
        }),
        { numRuns: 15 },
      );
    } finally {
      warehouse.close();
    }
  });
});
