/**
 * Item 6 of issue 8: a truncated or wrong ledger export must not replace a good one. Through the CLI on a
 * real DuckDB file: a re-export of the same path with no or too few accepted lines is refused (exit 1,
 * nothing changed) unless --replace, and the lines an import removes stay in ledger_history.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Warehouse } from '../../core/warehouse.js';
import { runCli } from '../support/cli.js';
import { temporaryDirectory } from '../support/ledger.js';

const temp = temporaryDirectory('ledger-replace');
afterAll(() => temp.remove());

const header = 'partner_reference,product_id,paid_at,sales_price,expected_cost,currency_code,country_code,order_status';
const line = (n: number) => `PO-${n},10,2026-01-${String((n % 28) + 1).padStart(2, '0')},10.00,8.00,BRL,BR,paid`;

async function ledgerCounts(database: string): Promise<{ ledger: number; history: number }> {
  const warehouse = await Warehouse.open(database, { readOnly: true });
  try {
    const row = await warehouse.one<{ ledger: number; history: number }>(
      'SELECT (SELECT count(*) FROM ledger)::INTEGER AS ledger, (SELECT count(*) FROM ledger_history)::INTEGER AS ' +
        'history',
    );
    return row!;
  } finally {
    warehouse.close();
  }
}

describe('pinrecon ledger import of a smaller export of the same path', () => {
  it('refuses none or fewer than half of the lines unless --replace, and keeps what it replaces', async () => {
    const file = path.join(temp.dir, 'ledger.csv');
    const database = path.join(temp.dir, 'pinrecon.duckdb');
    const config = path.join(temp.dir, 'pinrecon.config.json');
    writeFileSync(config, JSON.stringify({ database }));
    const write = (count: number) =>
      writeFileSync(file, `${[header, ...Array.from({ length: count }, (_, i) => line(i + 1))].join('\n')}\n`);
    const importIt = (...extra: string[]) => runCli(['ledger', 'import', file, '--config', config, ...extra]);

    write(10);
    expect((await importIt()).code).toBe(0);
    expect(await ledgerCounts(database)).toEqual({ ledger: 10, history: 0 });

    // Cut to its header line: refused, nothing changed.
    writeFileSync(file, `${header}\n`);
    const empty = await importIt();
    expect(empty.code, empty.stderr).toBe(1);
    expect(empty.stderr).toContain(
      `Refused to replace the 10 accepted ledger lines loaded from ${file} with the 0 accepted lines`,
    );
    expect(empty.stderr).toContain('--replace');
    expect(await ledgerCounts(database)).toEqual({ ledger: 10, history: 0 });

    // Fewer than half: refused too.
    write(4);
    expect((await importIt()).code).toBe(1);
    expect(await ledgerCounts(database)).toEqual({ ledger: 10, history: 0 });

    // With --replace: done, and the 10 superseded lines are kept.
    const forced = await importIt('--replace');
    expect(forced.code, forced.stderr).toBe(0);
    expect(await ledgerCounts(database)).toEqual({ ledger: 4, history: 10 });

    // At least half of the current lines: an ordinary re-export, accepted; the 4 it replaces are kept too.
    write(3);
    expect((await importIt()).code).toBe(0);
    expect(await ledgerCounts(database)).toEqual({ ledger: 3, history: 14 });
  });
});
