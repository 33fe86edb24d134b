/**
 * `pinrecon ledger import` through the built CLI: option overrides, exit codes, --json, and kill -9 mid-import.
 * The first import, the killed one and its re-run are spawned; the others run the command in this process
 * (runCommand), a spawn costing about a CPU-second.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { brazilianColumns, writeLedgerCsv } from '../../bench/generators/ledger-csv.js';
import { snapshotPath, type Warehouse } from '../../core/warehouse.js';
import { existsSync } from 'node:fs';
import { runCli, startCli } from '../support/cli.js';
import { runCommand } from '../support/cli-in-process.js';
import { openWarehouse, temporaryDirectory, testConfig } from '../support/ledger.js';

const header = 'partner_reference,product_id,paid_at,sales_price,expected_cost,currency_code,country_code,order_status';

async function counts(warehouse: Warehouse): Promise<Record<string, string>> {
  return (await warehouse.one(
    `SELECT (SELECT count(*) FROM ledger) AS ledger, (SELECT count(*) FROM ledger_rejects) AS rejects, (SELECT ` +
      `count(*) FROM ledger_files) AS files`,
  ))!;
}

describe('pinrecon ledger import (CLI)', () => {
  const cli = (args: string[], cwd: string) => runCli(args, { cwd });
  const inProcess = (args: string[], cwd: string) => runCommand(args, { cwd });

  it(
    'imports with option overrides, prints the summary and first rejects, ' +
      'publishes the snapshot; --json for machines',
    async () => {
      const dir = temporaryDirectory('cli');
      try {
        const configFile = path.join(dir.dir, 'pinrecon.config.json');
        writeFileSync(configFile, JSON.stringify({ database: 'data/p.duckdb', ledger: { columns: brazilianColumns } }));
        const file = path.join(dir.dir, 'vendas.txt');
        const lines = ['Pedido|Produto|Pago em|Valor venda|Custo esperado|Moeda|País|Situação'];
        for (let i = 1; i <= 8; i++)
          lines.push(
            i % 4 === 0
              ? `BAD-${i}|x|05/03/2024|1,00|1,00|BRL|BR|Pago`
              : `PED-${i}|${i}|05/03/2024 08:00:00|1.000,5${i}|9,99|BRL|BR|Pago`,
          );
        writeFileSync(file, Buffer.from(lines.join('\n'), 'latin1'));
        const args = [
          'ledger',
          'import',
          file,
          '--delimiter',
          '|',
          '--encoding',
          'latin1',
          '--decimal-separator',
          ',',
          '--date-format',
          'dd/MM/yyyy HH:mm:ss',
        ];
        const plain = await cli(args, dir.dir);
        expect(plain.code).toBe(0);
        expect(plain.stdout).toMatch(/vendas.txt \(csv\): 8 lines, 6 accepted, 2 rejected/);
        expect(plain.stdout).toMatch(
          /line 5: product_id: "x" is not a positive whole number\n {4}BAD-4\|x\|05\/03\/2024/,
        );
        expect(existsSync(snapshotPath(path.join(dir.dir, 'data', 'p.duckdb')))).toBe(true);

        const json = await inProcess([...args, '--json'], dir.dir);
        expect(json.code).toBe(0);
        expect(JSON.parse(json.stdout)).toMatchObject({
          ok: true,
          lines: 8,
          accepted: 6,
          rejected: 2,
          replaced: { sourceFile: file },
        });
      } finally {
        dir.remove();
      }
    },
  );

  // Usage errors of the command line (a group without its subcommand, --help, --version, bad options) are checked
  // in-process: test/commands/program.test.ts and test/commands/ledger.test.ts.
  it(
    'exits 2 naming the column and the headers when a ' + 'required column cannot be found, or a missing file',
    async () => {
      const dir = temporaryDirectory('cli-missing');
      try {
        const file = path.join(dir.dir, 'ledger.csv');
        writeFileSync(file, 'reference;product\nA;1\n');
        const result = await inProcess(['ledger', 'import', file], dir.dir);
        expect(result.code).toBe(2);
        expect(result.stderr).toMatch(
          new RegExp(
            /no column for partner_reference.*The header row has 1 column \(not quoted: open the file to /.source +
              /see them\).*ledger.delimiter/.source,
          ),
        );
        const missing = await inProcess(['ledger', 'import', path.join(dir.dir, 'nope.csv')], dir.dir);
        expect(missing.code).toBe(2);
        expect(missing.stderr).toMatch(/nope.csv does not exist/);
        const directory = await inProcess(['ledger', 'import', dir.dir], dir.dir);
        expect(directory.code).toBe(2);
        expect(directory.stderr).toMatch(
          new RegExp(
            /cli-missing-\w+ is a directory, not a ledger file. Pass the path of the exported ledger file, /.source +
              /e.g. .*ledger.csv/.source,
          ),
        );
      } finally {
        dir.remove();
      }
    },
  );

  it('leaves nothing half-imported when killed with SIGKILL, and a re-run gives exactly the clean result', async () => {
    const dir = temporaryDirectory('cli-kill');
    try {
      writeFileSync(path.join(dir.dir, 'pinrecon.config.json'), JSON.stringify({ database: 'p.duckdb' }));
      const file = path.join(dir.dir, 'big.csv');
      const total = 300_000;
      await writeLedgerCsv(file, {
        header,
        lines: total,
        line: (i) =>
          `R-${i},${(i % 97) + 1},2024-03-${String((i % 28) + 1).padStart(2, '0')} ` +
          `12:00:00,${i % 1000}.25,${i % 900}.5,BRL,BR,paid`,
      });
      const { child, done } = startCli(['ledger', 'import', file], { cwd: dir.dir });
      await new Promise<void>((resolve) => {
        child.stderr.on('data', (chunk: Buffer) => {
          if (chunk.toString().includes('reading')) setTimeout(resolve, 400);
        });
        child.on('exit', () => resolve());
      });
      child.kill('SIGKILL');
      await done;

      const config = testConfig(dir.dir);
      config.database = path.join(dir.dir, 'p.duckdb');
      let warehouse = await openWarehouse(config);
      let loaded: number;
      try {
        loaded = Number((await counts(warehouse)).ledger);
        // All or nothing: never a part of the file.
        expect([0, total]).toContain(loaded);
      } finally {
        warehouse.close();
      }
      // Spawned, as the killed run was: the re-run of a crash, as an operator does it.
      const rerun = await cli(['ledger', 'import', file, '--json'], dir.dir);
      expect(rerun.code).toBe(0);
      expect(JSON.parse(rerun.stdout)).toMatchObject({ lines: total, accepted: total, rejected: 0 });
      warehouse = await openWarehouse(config);
      try {
        expect(await counts(warehouse)).toEqual({ ledger: String(total), rejects: '0', files: '1' });
        expect(await warehouse.one(`SELECT sum(sales_price)::VARCHAR AS s FROM ledger`)).toEqual({
          s: '149925000.0000',
        });
        // The killed run is visible as abandoned in the trace.
        const statuses = (await warehouse.all(`SELECT status FROM pipeline_runs ORDER BY started_at`)).map(
          (r) => r.status,
        );
        expect(statuses).toEqual(loaded === 0 ? ['abandoned', 'succeeded'] : ['succeeded', 'succeeded']);
      } finally {
        warehouse.close();
      }
    } finally {
      dir.remove();
    }
  });
});
