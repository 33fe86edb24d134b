/**
 * XLSX ledgers as real spreadsheets write them, beyond what exceljs writes: sheet parts stored in any ZIP
 * order (LibreOffice), formulas whose saved result is 0, plain-number dates, title rows above the header.
 * The workbooks are built here part by part with a small ZIP writer, so the test controls every byte
 * (entry order, `<v>0</v>`) without LibreOffice.
 */
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../../core/errors.js';
import { configSchema } from '../../../config/schema.js';
import { importLedger } from '../../../pipelines/ledger/import.js';
import { readLedger } from '../../../sources/ledger/read-ledger.js';
import { checkXlsxLimits, defaultXlsxLimits } from '../../../core/xlsx-limits.js';
import type { LedgerItem, LedgerReadSettings } from '../../../sources/ledger/types.js';
import { capturedOutput, openWarehouse, temporaryDirectory, testConfig } from '../../support/ledger.js';
import { zip } from '../../support/zip.js';

const temp = temporaryDirectory('ledger-xlsx');
afterAll(() => temp.remove());

/** A cell: text (inline string), a number, or a formula with its saved result. */
type Cell = string | number | null | { formula: string; result: number };

function cellXml(cell: Cell, ref: string): string {
  if (cell === null) return '';
  if (typeof cell === 'string')
    return `<c r="${ref}" t="inlineStr"><is><t>${cell.replace(/&/g, '&amp;').replace(/</g, '&lt;')}</t></is></c>`;
  if (typeof cell === 'number') return `<c r="${ref}"><v>${cell}</v></c>`;
  return `<c r="${ref}"><f>${cell.formula}</f><v>${cell.result}</v></c>`;
}

/** The namespaces of the parts below. */
const mainNs = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const packageRelsNs = 'http://schemas.openxmlformats.org/package/2006/relationships';
const officeRelsNs = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const xmlDecl = '<?xml version="1.0" encoding="UTF-8"?>';
const xmlDeclStandalone = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>';

function sheetXml(rows: Cell[][]): string {
  const cellRef = (r: number, c: number) => `${String.fromCharCode(65 + c)}${r + 1}`;
  const body = rows
    .map((cells, r) => `<row r="${r + 1}">${cells.map((cell, c) => cellXml(cell, cellRef(r, c))).join('')}</row>`)
    .join('');
  return `${xmlDeclStandalone}<worksheet xmlns="${mainNs}"><sheetData>${body}</sheetData></worksheet>`;
}

interface SheetSpec {
  name: string;
  rows: Cell[][];
}

/**
 * Writes a workbook whose tabs are `sheets` in order; `zipOrder` lists the tab indexes in the order their
 * parts are stored in the archive (default: reversed, as LibreOffice may store them).
 */
function writeWorkbook(
  name: string,
  sheets: SheetSpec[],
  options: { zipOrder?: number[]; date1904?: boolean; sharedStrings?: string } = {},
): string {
  const ns = `xmlns="${mainNs}" xmlns:r="${officeRelsNs}"`;
  const sheetTags = sheets
    .map((s, i) => `<sheet name="${s.name.replace(/&/g, '&amp;')}" sheetId="${i + 1}" r:id="rId${i + 1}"/>`)
    .join('');
  const workbook =
    `${xmlDeclStandalone}<workbook ${ns}>${options.date1904 ? '<workbookPr date1904="1"/>' : ''}` +
    `<sheets>${sheetTags}</sheets></workbook>`;
  const sheetRels = sheets
    .map(
      (_, i) =>
        `<Relationship Id="rId${i + 1}" Type="${officeRelsNs}/worksheet" Target="worksheets/sheet${i + 1}.xml"/>`,
    )
    .join('');
  const rels =
    `${xmlDecl}<Relationships xmlns="${packageRelsNs}">${sheetRels}` +
    `<Relationship Id="rIdS" Type="${officeRelsNs}/sharedStrings" Target="sharedStrings.xml"/></Relationships>`;
  const officeType = 'application/vnd.openxmlformats-officedocument.spreadsheetml';
  const sheetOverrides = sheets
    .map((_, i) => `<Override PartName="/xl/worksheets/sheet${i + 1}.xml" ContentType="${officeType}.worksheet+xml"/>`)
    .join('');
  const contentTypes =
    `${xmlDecl}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
    '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
    '<Default Extension="xml" ContentType="application/xml"/>' +
    `<Override PartName="/xl/workbook.xml" ContentType="${officeType}.sheet.main+xml"/>${sheetOverrides}</Types>`;
  const order = options.zipOrder ?? sheets.map((_, i) => sheets.length - 1 - i);
  const file = path.join(temp.dir, name);
  writeFileSync(
    file,
    zip([
      ['[Content_Types].xml', contentTypes],
      [
        '_rels/.rels',
        `${xmlDecl}<Relationships xmlns="${packageRelsNs}">` +
          `<Relationship Id="rId1" Type="${officeRelsNs}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
      ],
      ['xl/workbook.xml', workbook],
      ['xl/_rels/workbook.xml.rels', rels],
      [
        'xl/sharedStrings.xml',
        options.sharedStrings ??
          `<?xml version="1.0" encoding="UTF-8"?><sst ` +
            `xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" count="0" uniqueCount="0"/>`,
      ],
      ...order.map((i): [string, string] => [`xl/worksheets/sheet${i + 1}.xml`, sheetXml(sheets[i]!.rows)]),
    ]),
  );
  return file;
}

const header: Cell[] = [
  'partner_reference',
  'product_id',
  'paid_at',
  'sales_price',
  'expected_cost',
  'currency_code',
  'order_status',
];
const line = (reference: string, paidAt: Cell = '2025-03-10 10:00:00', cost: Cell = 9.5): Cell[] => [
  reference,
  2101,
  paidAt,
  10,
  cost,
  'BRL',
  'paid',
];

function settings(ledger: Record<string, unknown> = {}): LedgerReadSettings {
  return { ...configSchema.parse({ ledger }).ledger, format: 'xlsx' };
}

async function readAll(file: string, s: LedgerReadSettings): Promise<LedgerItem[]> {
  const items: LedgerItem[] = [];
  for await (const item of readLedger(file, s)) items.push(item);
  return items;
}

const rowsOf = (items: LedgerItem[]) => items.flatMap((i) => (i.row ? [i.row] : []));
const rejectsOf = (items: LedgerItem[]) => items.flatMap((i) => (i.reject ? [i.reject] : []));

describe('the first sheet is the first tab, whatever the ZIP order', () => {
  const twoMonths = () =>
    writeWorkbook('two-months.xlsx', [
      { name: 'Março', rows: [header, line('MAR-1'), line('MAR-2')] },
      { name: 'Fevereiro', rows: [header, line('FEV-1')] },
    ]);

  it('reads the first tab, not the sheet stored first in the archive', async () => {
    const items = await readAll(twoMonths(), settings());
    expect(rowsOf(items).map((r) => r.partner_reference)).toEqual(['MAR-1', 'MAR-2']);
    // A named sheet is found wherever its part is stored.
    const february = await readAll(twoMonths(), settings({ sheet: 'Fevereiro' }));
    expect(rowsOf(february).map((r) => r.partner_reference)).toEqual(['FEV-1']);
  });

  it('lists the sheets in tab order when the named one is absent', async () => {
    const file = writeWorkbook(
      'three.xlsx',
      [
        { name: 'Lançamentos', rows: [header, line('L-1')] },
        { name: 'Resumo & totais', rows: [['total']] },
        { name: 'Dados', rows: [['x']] },
      ],
      { zipOrder: [2, 0, 1] },
    );
    const error = (await readAll(file, settings({ sheet: 'Ledger' })).catch((e: unknown) => e)) as ConfigError;
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.message).toMatch(
      /no sheet named "Ledger" \(ledger.sheet\); sheets found: "Lançamentos", "Resumo & totais", "Dados"\.$/,
    );
  });

  it('says on the console and in the summary which sheet was read, and names the others', async () => {
    const dir = temporaryDirectory('ledger-xlsx-import');
    const config = testConfig(dir.dir);
    const warehouse = await openWarehouse(config);
    try {
      const { output, stderr } = capturedOutput();
      const summary = await importLedger(warehouse, config, twoMonths(), {}, output);
      expect(summary).toMatchObject({ sheet: 'Março', lines: 2, accepted: 2 });
      expect(stderr()).toMatch(
        new RegExp(
          /read the first sheet "Março" of 2 \(the others: "Fevereiro"\); to read another, set /.source +
            /ledger.sheet or pass --sheet/.source,
        ),
      );
      const named = capturedOutput();
      const february = await importLedger(
        warehouse,
        { ...config, ledger: { ...config.ledger, sheet: 'Fevereiro' } },
        twoMonths(),
        {},
        named.output,
      );
      expect(february).toMatchObject({ sheet: 'Fevereiro', lines: 1 });
      expect(named.stderr()).not.toMatch(/read the first sheet/);
    } finally {
      warehouse.close();
      dir.remove();
    }
  });
});

describe('cell values', () => {
  it('reads a formula whose saved result is 0 as 0, not as an empty cell', async () => {
    const file = writeWorkbook('zero.xlsx', [
      {
        name: 'L',
        rows: [
          header,
          [
            'Z-1',
            2101,
            '2025-03-10 10:00:00',
            10,
            { formula: 'IF(G2="canceled",0,D2*0.95)', result: 0 },
            'BRL',
            'canceled',
          ],
          ['Z-2', 2101, '2025-03-10 10:00:00', { formula: '0*1', result: 0 }, 0, 'BRL', 'paid'],
          ['Z-3', 2101, '2025-03-10 10:00:00', 10, { formula: 'D4*0.95', result: 9.5 }, 'BRL', 'paid'],
        ],
      },
    ]);
    const items = await readAll(file, settings());
    expect(rejectsOf(items)).toEqual([]);
    expect(rowsOf(items).map((r) => [r.partner_reference, r.sales_price, r.expected_cost])).toEqual([
      ['Z-1', '10', '0'],
      ['Z-2', '0', '0'],
      ['Z-3', '10', '9.5'],
    ]);
  });

  it(
    'reads a plain number in paid_at as an Excel date ' + 'serial (1900 or 1904 system), only from 1990 to 2100',
    async () => {
      const rows = [
        header,
        line('S-1', 45726.4166666667),
        line('S-2', { formula: 'DATE(2025,3,11)', result: 45727 } as Cell),
        line('S-3', 20250310),
        line('S-4', 1741600800),
      ];
      const items = await readAll(writeWorkbook('serials.xlsx', [{ name: 'L', rows }]), settings());
      expect(rowsOf(items).map((r) => [r.partner_reference, r.paid_local, r.paid_at_raw])).toEqual([
        ['S-1', '2025-03-10 10:00:00', '45726.4166666667'],
        ['S-2', '2025-03-11 00:00:00', '45727'],
      ]);
      expect(rejectsOf(items).map((r) => [r.source_line, r.reason])).toEqual([
        [
          4,
          'paid_at: 20250310 is not a date (a number in an XLSX date cell is read as an Excel date serial only from ' +
            '1990 to 2100)',
        ],
        [5, expect.stringMatching(/^paid_at: 1741600800 is not a date/)],
      ]);
      // The 1904 date system (old Mac workbooks) counts 1462 days fewer for the same date.
      const mac = await readAll(
        writeWorkbook('serials-1904.xlsx', [{ name: 'L', rows: [header, line('M-1', 45726.4166666667 - 1462)] }], {
          date1904: true,
        }),
        settings(),
      );
      expect(rowsOf(mac).map((r) => r.paid_local)).toEqual(['2025-03-10 10:00:00']);
    },
  );
});

describe('a title above the header', () => {
  const titled = () =>
    writeWorkbook(
      'titled.xlsx',
      [
        {
          name: 'Lançamentos',
          rows: [
            ['Razão do parceiro — março de 2025'],
            [],
            ['exportado em', '2025-04-01'],
            header,
            line('T-1'),
            line('T-2'),
            ['T-3', 2101, '2025-03-10', 'n/d', 1, 'BRL', 'paid'],
          ],
        },
      ],
      { zipOrder: [0] },
    );

  it('finds the header below title rows; the rows above it are skipped, neither accepted nor rejected', async () => {
    const skipped: [number, string][] = [];
    const items: LedgerItem[] = [];
    for await (const item of readLedger(titled(), settings(), { onAboveHeader: (at, raw) => skipped.push([at, raw]) }))
      items.push(item);
    expect(skipped).toEqual([
      [1, '["Razão do parceiro — março de 2025"]'],
      [3, '["exportado em","2025-04-01"]'],
    ]);
    expect(rowsOf(items).map((r) => [r.source_line, r.partner_reference])).toEqual([
      [5, 'T-1'],
      [6, 'T-2'],
    ]);
    expect(rejectsOf(items).map((r) => r.source_line)).toEqual([7]);
  });

  it('reports the skipped rows on the console and keeps accepted + rejected = lines', async () => {
    const dir = temporaryDirectory('ledger-xlsx-title');
    const config = testConfig(dir.dir);
    const warehouse = await openWarehouse(config);
    try {
      const { output, stderr } = capturedOutput();
      const summary = await importLedger(warehouse, config, titled(), {}, output);
      expect(summary).toMatchObject({ lines: 3, accepted: 2, rejected: 1, skippedAboveHeader: 2 });
      expect(stderr()).toMatch(
        /skipped 2 rows above the header \(rows 1, 3\): a title or notes, not data, not counted in the lines/,
      );
      expect(await warehouse.one(`SELECT lines FROM ledger_files WHERE file_hash = $1`, [summary.fileHash])).toEqual({
        lines: '3',
      });
    } finally {
      warehouse.close();
      dir.remove();
    }
  });

  it(
    'takes the first row as the header when none of the first ' +
      '20 names every required column, and says what is missing',
    async () => {
      const rows: Cell[][] = [
        ['Razão do parceiro'],
        ...Array.from({ length: 20 }, (_, i): Cell[] => [`nota ${i}`]),
        header,
        line('T-1'),
      ];
      const error = (await readAll(writeWorkbook('deep.xlsx', [{ name: 'L', rows }]), settings()).catch(
        (e: unknown) => e,
      )) as ConfigError;
      expect(error).toBeInstanceOf(ConfigError);
      expect(error.message).toMatch(/no column for partner_reference.*The header row has \d+ columns? \(not quoted/);
      expect(error.message).not.toContain('Razão do parceiro');
    },
  );
});

describe('hostile workbooks', () => {
  const sst = (strings: string[]) =>
    `${xmlDecl}<sst xmlns="${mainNs}">${strings.map((t) => `<si><t>${t}</t></si>`).join('')}</sst>`;
  /** A real zip bomb: about 250 KB of archive whose shared strings inflate to 100 MB (400×). */
  let bombBytes: Buffer | undefined;
  const bomb = () => {
    if (bombBytes)
      return (writeFileSync(path.join(temp.dir, 'bomb.xlsx'), bombBytes), path.join(temp.dir, 'bomb.xlsx'));
    const strings = '<si><t>AAAAAAAAAAAAAAAA</t></si>'.repeat((100 * 1024 * 1024) / 27);
    const file = writeWorkbook('bomb.xlsx', [{ name: 'Ledger', rows: [header, line('R-1')] }], {
      sharedStrings: `${xmlDecl}<sst xmlns="${mainNs}">${strings}</sst>`,
    });
    bombBytes = readFileSync(file);
    return file;
  };

  it('refuses a zip bomb with a clear message, and the import is recorded as failed, not left running', async () => {
    const file = bomb();
    expect(statSync(file).size).toBeLessThan(512 * 1024);
    await expect(readAll(file, settings())).rejects.toThrow(
      /bomb\.xlsx is refused: its part xl\/sharedStrings\.xml inflates \d+× .* zip bomb/,
    );
    const dir = temporaryDirectory('ledger-xlsx-bomb');
    const config = testConfig(dir.dir);
    const warehouse = await openWarehouse(config);
    try {
      const failing = importLedger(warehouse, config, file, {}, capturedOutput().output);
      await expect(failing).rejects.toThrow(/is refused: .*zip bomb/);
      const runs = await warehouse.all<{ status: string }>(`SELECT status FROM pipeline_runs`);
      expect(runs.map((r) => r.status)).toEqual(['failed']);
    } finally {
      warehouse.close();
      dir.remove();
    }
  });

  it('catches a bomb whose archive lies about its sizes, by counting what really inflates', async () => {
    const file = bomb();
    const bytes = readFileSync(file);
    // Declare the shared strings 1 KB inflated, in the local header and the central directory alike.
    const name = Buffer.from('xl/sharedStrings.xml');
    for (let at = bytes.indexOf(name); at >= 0; at = bytes.indexOf(name, at + 1)) {
      if (bytes.readUInt32LE(at - 30) === 0x04034b50) bytes.writeUInt32LE(1024, at - 30 + 22);
      else if (bytes.readUInt32LE(at - 46) === 0x02014b50) bytes.writeUInt32LE(1024, at - 46 + 24);
    }
    writeFileSync(file, bytes);
    // Streaming stops at whichever comes first: the ratio of what really inflates, or the count of strings.
    await expect(readAll(file, settings())).rejects.toThrow(
      new RegExp(
        /is refused: /.source +
          '(' +
          /its part xl\/sharedStrings\.xml inflates \d+× .*more than the archive declares/.source +
          '|' +
          /its shared strings number more than/.source +
          ')' +
          /.*zip bomb/.source,
      ),
    );
  });

  it('caps the count and the length of shared strings', async () => {
    const many = writeWorkbook('many-strings.xlsx', [{ name: 'Ledger', rows: [header, line('R-1')] }], {
      sharedStrings: sst(Array.from({ length: 101 }, (_, i) => `s${i}`)),
    });
    await expect(checkXlsxLimits(many, { ...defaultXlsxLimits, maxSharedStrings: 100 })).rejects.toThrow(
      /shared strings number more than 100/,
    );
    await expect(checkXlsxLimits(many, { ...defaultXlsxLimits, maxSharedStrings: 101 })).resolves.toBeUndefined();
    const long = writeWorkbook('long-string.xlsx', [{ name: 'Ledger', rows: [header, line('R-1')] }], {
      sharedStrings: sst(['short', 'x'.repeat(300_000), 'short']),
    });
    await expect(readAll(long, settings())).rejects.toThrow(
      /long-string\.xlsx is refused: its shared string number 2 is longer than 262,136 bytes of XML/,
    );
    const fine = writeWorkbook('fine-strings.xlsx', [{ name: 'Ledger', rows: [header, line('R-1')] }], {
      sharedStrings: sst(['x'.repeat(32_767)]),
    });
    expect(rowsOf(await readAll(fine, settings()))).toHaveLength(1);
  });
});
