/**
 * `ledger import` against a real DuckDB file: exact money and zoned dates, rejects kept, re-import
 * replaces, files accumulate, a new content supersedes its path, a failure or kill -9 leaves nothing
 * half-imported, and the CLI's options, exit codes and --json.
 */
import { copyFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { brazilianLedger } from '../../../bench/generators/ledger-csv.js';
import { describeLedgerImport, importLedger } from '../../../pipelines/ledger/import.js';
import type { Warehouse } from '../../../core/warehouse.js';
import { capturedOutput, temporaryDirectory, withLedgerWarehouse } from '../../support/ledger.js';

const temp = temporaryDirectory('ledger-import');
afterAll(() => temp.remove());

const header = 'partner_reference,product_id,paid_at,sales_price,expected_cost,currency_code,country_code,order_status';

function writeCsv(name: string, lines: string[]): string {
  const file = path.join(temp.dir, name);
  writeFileSync(file, `${[header, ...lines].join('\n')}\n`);
  return file;
}

async function counts(warehouse: Warehouse): Promise<Record<string, string>> {
  return (await warehouse.one(
    `SELECT (SELECT count(*) FROM ledger) AS ledger, (SELECT count(*) FROM ledger_rejects) AS rejects, (SELECT ` +
      `count(*) FROM ledger_files) AS files`,
  ))!;
}

describe('importLedger', () => {
  it('loads the Brazilian export with exact money, zoned dates, rejects and the run trace', async () => {
    await withLedgerWarehouse('br', brazilianLedger, async ({ dir, config, warehouse }) => {
      const file = path.join(dir.dir, 'vendas.csv');
      const lines = [
        'Pedido;Produto;Pago em;Valor venda;Custo esperado;Moeda;País;Situação',
        'PED-1;101;05/03/2024 10:15:00;1.234,56;1.100,01;BRL;BR;Pago',
        'PED-2;102;06/03/2024;0,10;0,20;BRL;BR;Cancelado',
        'PED-3;103;06/03/2024;abc;0,20;BRL;BR;Pago',
        'PED-4;104;2024-03-31T23:30:00-03:00;0,20;0,10;BRL;BR;reembolsado',
        'PED-5;105;06/03/2024;1,00;1,00;BRL',
      ];
      writeFileSync(file, Buffer.from(lines.join('\r\n'), 'latin1'));
      const captured = capturedOutput();
      const summary = await importLedger(warehouse, config, file, {}, captured.output);
      expect(summary).toMatchObject({ lines: 5, accepted: 3, rejected: 2, format: 'csv' });
      expect(summary.firstRejects.map((r) => r.source_line)).toEqual([4, 6]);
      const totals = await warehouse.one(
        `SELECT sum(sales_price)::VARCHAR AS sales, sum(expected_cost)::VARCHAR AS cost FROM ledger`,
      );
      expect(totals).toEqual({ sales: '1234.8600', cost: '1100.3100' });
      const rows = await warehouse.all(
        `SELECT partner_reference, strftime(paid_at AT TIME ZONE 'UTC', '%Y-%m-%d %H:%M:%S') AS paid_utc, order_status,
          source_line, source_file
           FROM ledger ORDER BY source_line`,
      );
      expect(rows).toEqual([
        {
          partner_reference: 'PED-1',
          paid_utc: '2024-03-05 13:15:00',
          order_status: 'paid',
          source_line: '2',
          source_file: file,
        },
        {
          partner_reference: 'PED-2',
          paid_utc: '2024-03-06 03:00:00',
          order_status: 'canceled',
          source_line: '3',
          source_file: file,
        },
        {
          partner_reference: 'PED-4',
          paid_utc: '2024-04-01 02:30:00',
          order_status: 'refunded',
          source_line: '5',
          source_file: file,
        },
      ]);
      const rejects = await warehouse.all(`SELECT source_line, reason, raw FROM ledger_rejects ORDER BY source_line`);
      expect(rejects).toEqual([
        {
          source_line: '4',
          reason: expect.stringMatching(/^sales_price: malformed number "abc"/),
          raw: 'PED-3;103;06/03/2024;abc;0,20;BRL;BR;Pago',
        },
        {
          source_line: '6',
          reason: 'expected 8 fields separated by ";", found 6',
          raw: 'PED-5;105;06/03/2024;1,00;1,00;BRL',
        },
      ]);
      const run = await warehouse.one(
        `SELECT command, status, rows_loaded, details FROM pipeline_runs WHERE run_id = $1`,
        [summary.runId],
      );
      expect(run).toMatchObject({ command: 'ledger import', status: 'succeeded', rows_loaded: '3' });
      expect(JSON.parse(String(run!.details))).toMatchObject({
        lines: 5,
        accepted: 3,
        rejected: 2,
        fileHash: summary.fileHash,
      });
      expect(captured.stderr()).toMatch(/2 of 5 ledger lines of .*vendas.csv were rejected/);
      // Temporary staging tables are gone.
      expect(await warehouse.all(`SELECT table_name FROM duckdb_tables() WHERE temporary`)).toEqual([]);
    });
  });

  it(
    'replaces the rows of the same content, accumulates ' + 'other files, and supersedes a path whose content changed',
    async () => {
      await withLedgerWarehouse('replace', {}, async ({ dir, config, warehouse }) => {
        const first = writeCsv('march.csv', [
          'A-1,1,2024-03-01,10.00,9.00,BRL,BR,paid',
          'A-2,1,2024-03-02,bad,9.00,BRL,BR,paid',
        ]);
        const other = writeCsv('april.csv', ['B-1,1,2024-04-01,10.00,9.00,BRL,BR,paid']);
        await importLedger(warehouse, config, first, {}, capturedOutput().output);
        expect(await counts(warehouse)).toEqual({ ledger: '1', rejects: '1', files: '1' });

        const again = capturedOutput();
        const repeated = await importLedger(warehouse, config, first, {}, again.output);
        expect(repeated.replaced?.sourceFile).toBe(first);
        expect(await counts(warehouse)).toEqual({ ledger: '1', rejects: '1', files: '1' });
        expect(again.stderr()).toMatch(/same content was imported from .*march.csv.*replaced, not duplicated/);

        await importLedger(warehouse, config, other, {}, capturedOutput().output);
        expect(await counts(warehouse)).toEqual({ ledger: '2', rejects: '1', files: '2' });

        // Finance re-exports March with a correction: the new content supersedes the old one of that path.
        writeCsv('march.csv', [
          'A-1,1,2024-03-01,10.00,9.00,BRL,BR,paid',
          'A-2,1,2024-03-02,11.00,9.00,BRL,BR,paid',
          'A-3,1,2024-03-03,12.00,9.00,BRL,BR,refunded',
        ]);
        const superseding = capturedOutput();
        const summary = await importLedger(warehouse, config, first, {}, superseding.output);
        expect(summary.superseded).toMatchObject({ lines: 2 });
        expect(superseding.stderr()).toMatch(/supersedes the earlier import of .*march.csv \(different content/);
        expect(await counts(warehouse)).toEqual({ ledger: '4', rejects: '0', files: '2' });
        expect(await warehouse.all(`SELECT partner_reference FROM ledger ORDER BY 1`)).toEqual(
          ['A-1', 'A-2', 'A-3', 'B-1'].map((partner_reference) => ({ partner_reference })),
        );

        // The same content under another name is loaded once: its rows are replaced and stay under the first path.
        const copy = path.join(dir.dir, 'april-copy.csv');
        copyFileSync(other, copy);
        const copied = capturedOutput();
        expect((await importLedger(warehouse, config, copy, {}, copied.output)).replaced?.sourceFile).toBe(other);
        expect(copied.stderr()).toMatch(
          /april-copy.csv has the same content .* as .*april.csv.*loaded once.*stay under .*april.csv/,
        );
        expect(await counts(warehouse)).toEqual({ ledger: '4', rejects: '0', files: '2' });
        expect(await warehouse.one(`SELECT source_file FROM ledger WHERE partner_reference = 'B-1'`)).toEqual({
          source_file: other,
        });
      });
    },
  );

  it('supersedes what is loaded from a path even after a copy of it was imported (no duplicate orders)', async () => {
    await withLedgerWarehouse('copy', {}, async ({ dir, config, warehouse }) => {
      const rows = (n: number, price: string) =>
        Array.from({ length: n }, (_, i) => `L-${i + 1},1,2024-03-01,${price},9.00,BRL,BR,paid`);
      const ledger = writeCsv('ledger.csv', rows(5, '10.00'));
      const copy = path.join(dir.dir, 'ledger_copy.csv');
      copyFileSync(ledger, copy);
      await importLedger(warehouse, config, ledger, {}, capturedOutput().output);
      await importLedger(warehouse, config, copy, {}, capturedOutput().output);
      expect(await counts(warehouse)).toEqual({ ledger: '5', rejects: '0', files: '1' });

      // Finance corrects ledger.csv (one order fewer, new prices): it replaces everything loaded from that path.
      writeCsv('ledger.csv', rows(4, '11.00'));
      const edited = capturedOutput();
      const summary = await importLedger(warehouse, config, ledger, {}, edited.output);
      expect(summary.superseded).toMatchObject({ lines: 5 });
      expect(edited.stderr()).toMatch(/supersedes the earlier import of .*ledger.csv/);
      expect(await counts(warehouse)).toEqual({ ledger: '4', rejects: '0', files: '1' });
      expect(
        await warehouse.one(
          `SELECT count(DISTINCT partner_reference) AS orders, min(sales_price)::VARCHAR AS price, ` +
            `any_value(source_file) AS file FROM ledger`,
        ),
      ).toEqual({
        orders: '4',
        price: '11.0000',
        file: ledger,
      });
    });
  });

  it('reads a .tsv file as tab-separated unless a delimiter is given', async () => {
    await withLedgerWarehouse('tsv', { delimiter: ';' }, async ({ dir, config, warehouse }) => {
      const file = path.join(dir.dir, 'ledger.tsv');
      writeFileSync(file, `${header.split(',').join('\t')}\nT-1\t5\t2024-03-05\t1.5\t1.25\tBRL\tBR\tpaid\n`);
      const summary = await importLedger(warehouse, config, file, {}, capturedOutput().output);
      expect(summary).toMatchObject({ format: 'csv', lines: 1, accepted: 1 });
      expect(await warehouse.one(`SELECT partner_reference, expected_cost::VARCHAR AS cost FROM ledger`)).toEqual({
        partner_reference: 'T-1',
        cost: '1.2500',
      });
    });
  });

  it(
    'locates the records of a minified JSON array by ' + 'ordinal: distinct source_line, rejects say "record N"',
    async () => {
      await withLedgerWarehouse('json-one-line', {}, async ({ dir, config, warehouse }) => {
        const element = (i: number) => ({
          partner_reference: `J-${i}`,
          product_id: 1,
          paid_at: '2024-03-05',
          sales_price: '1.00',
          expected_cost: '1.00',
          currency_code: 'BRL',
          order_status: 'paid',
        });
        const records: unknown[] = Array.from({ length: 103 }, (_, i) => element(i + 1));
        // Three bad records, at ordinals 10, 50 and 103.
        records[9] = { ...element(10), sales_price: 'abc' };
        records[49] = 'not an object';
        records[102] = { ...element(103), order_status: undefined };
        const file = path.join(dir.dir, 'ledger.json');
        writeFileSync(file, JSON.stringify(records));
        const summary = await importLedger(warehouse, config, file, {}, capturedOutput().output);
        expect(summary).toMatchObject({ lines: 103, accepted: 100, rejected: 3 });
        expect(
          (await warehouse.all(`SELECT source_line FROM ledger_rejects ORDER BY 1`)).map((r) => r.source_line),
        ).toEqual(['10', '50', '103']);
        expect(
          await warehouse.one(
            `SELECT count(DISTINCT source_line) AS lines, min(source_line) AS first, max(source_line) AS last FROM ` +
              `ledger`,
          ),
        ).toEqual({ lines: '100', first: '1', last: '102' });
        expect(await warehouse.one(`SELECT partner_reference FROM ledger WHERE source_line = 51`)).toEqual({
          partner_reference: 'J-51',
        });
        const text = describeLedgerImport(summary);
        expect(text).toMatch(
          new RegExp(
            /\n {2}record 10: sales_price: .*\n.*\n {2}record 50: not a JSON /.source +
              /object\n.*\n {2}record 103: order_status: missing/.source,
          ),
        );
        expect(text).not.toMatch(/line 1:/);
      });
    },
  );

  it('leaves the previous import untouched when an import fails half-way', async () => {
    await withLedgerWarehouse('fail', {}, async ({ dir, config, warehouse }) => {
      const file = path.join(dir.dir, 'ledger.json');
      const element = (reference: string) =>
        JSON.stringify({
          partner_reference: reference,
          product_id: 1,
          paid_at: '2024-03-05',
          sales_price: '1.00',
          expected_cost: '1.00',
          currency_code: 'BRL',
          order_status: 'paid',
        });
      writeFileSync(file, `[${element('OLD-1')}]`);
      await importLedger(warehouse, config, file, {}, capturedOutput().output);
      // New content whose elements stage fine, then the file turns out broken at its end.
      writeFileSync(file, `[${element('NEW-1')},\n${element('NEW-2')}] trailing`);
      await expect(importLedger(warehouse, config, file, {}, capturedOutput().output)).rejects.toThrow(
        /unexpected text after the end of the JSON array/,
      );
      expect(await warehouse.all(`SELECT partner_reference FROM ledger`)).toEqual([{ partner_reference: 'OLD-1' }]);
      expect(await counts(warehouse)).toEqual({ ledger: '1', rejects: '0', files: '1' });
      const runs = await warehouse.all(`SELECT status, error FROM pipeline_runs ORDER BY started_at`);
      expect(runs.map((r) => r.status)).toEqual(['succeeded', 'failed']);
    });
  });
});
