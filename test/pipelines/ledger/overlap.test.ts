/**
 * Issue 18 item 5: a truncated copy of an imported ledger under a new path was accepted silently and doubled
 * its orders (1,900 duplicate_reference findings). A new file that repeats most references of another
 * imported file is refused, naming it and the command that replaces it instead; `--instead-of` does that
 * (the replaced lines kept in ledger_history), `--allow-overlap` imports it anyway with a warning.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { JobError, UsageError } from '../../../core/errors.js';
import type { Config } from '../../../config/schema.js';
import type { Warehouse } from '../../../core/warehouse.js';
import { importLedger } from '../../../pipelines/ledger/import.js';
import { capturedOutput, openWarehouse, temporaryDirectory, testConfig } from '../../support/ledger.js';

const head = 'partner_reference,product_id,paid_at,sales_price,expected_cost,currency_code,order_status';
const line = (reference: string) => `${reference},1,2024-03-05,10.00,8.00,BRL,paid`;

describe('a new ledger file that repeats another imported file', () => {
  let dir: ReturnType<typeof temporaryDirectory>;
  let config: Config;
  let warehouse: Warehouse;
  const write = (name: string, references: string[]) => {
    const file = path.join(dir.dir, name);
    writeFileSync(file, `${[head, ...references.map(line)].join('\n')}\n`);
    return file;
  };
  const references = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => `PO-${from + i}`);
  const count = async (sql: string) => Number((await warehouse.one<{ n: string }>(sql))!.n);

  beforeEach(async () => {
    dir = temporaryDirectory('ledger-overlap');
    config = testConfig(dir.dir);
    warehouse = await openWarehouse(config);
  });
  afterEach(() => {
    warehouse.close();
    dir.remove();
  });

  it('is refused, naming the other file and the command that replaces it, and changes nothing', async () => {
    const march = write('march.csv', references(1, 20));
    await importLedger(warehouse, config, march, {}, capturedOutput().output);
    const copy = write('march-copy.csv', references(1, 15)); // a truncated copy under a new path

    const error = (await importLedger(warehouse, config, copy, {}, capturedOutput().output).catch(
      (e: unknown) => e,
    )) as JobError;
    expect(error).toBeInstanceOf(JobError);
    expect(error.message).toContain(
      `Refused to import ${copy}: 15 of the 15 references of ${copy} (100%) are already loaded from ${march}`,
    );
    expect(error.message).toContain('duplicate_reference');
    expect(error.hint).toContain(`pinrecon ledger import ${copy} --instead-of ${march}`);
    expect(error.hint).toContain('--allow-overlap');
    expect(await count('SELECT count(*) AS n FROM ledger')).toBe(20);
    expect(
      await count(`SELECT count(*) AS n FROM pipeline_runs WHERE command = 'ledger import' AND status = 'failed'`),
    ).toBe(1);
  });

  it(
    'a ledger sharing 45 % of its references with the ' + 'imported one is refused too, with the count (issue 34)',
    async () => {
      const march = write('march.csv', references(1, 20));
      await importLedger(warehouse, config, march, {}, capturedOutput().output);
      const other = write('other.csv', [...references(1, 9), ...references(101, 111)]); // 9 of 20 already loaded
      const error = (await importLedger(warehouse, config, other, {}, capturedOutput().output).catch(
        (e: unknown) => e,
      )) as JobError;
      expect(error).toBeInstanceOf(JobError);
      expect(error.message).toContain(`9 of the 20 references of ${other} (45%) are already loaded from ${march}`);
      expect(await count('SELECT count(*) AS n FROM ledger')).toBe(20);
      const allowed = await importLedger(warehouse, config, other, { allowOverlap: true }, capturedOutput().output);
      expect(allowed.overlap).toEqual(expect.objectContaining({ shared: 9, references: 20 }));
    },
  );

  it(
    '--instead-of replaces the other file (its lines kept in ' +
      'ledger_history); --allow-overlap imports with a warning',
    async () => {
      const march = write('march.csv', references(1, 20));
      await importLedger(warehouse, config, march, {}, capturedOutput().output);
      const corrected = write('march-v2.csv', references(1, 18));
      const summary = await importLedger(warehouse, config, corrected, { insteadOf: march }, capturedOutput().output);
      expect(summary.superseded).toMatchObject({ lines: 20 });
      expect(await count('SELECT count(*) AS n FROM ledger')).toBe(18);
      expect(await count(`SELECT count(DISTINCT source_file) AS n FROM ledger`)).toBe(1);
      expect(await count(`SELECT count(*) AS n FROM ledger_history WHERE source_file = '${march}'`)).toBe(20);

      const shared = write('partner-b.csv', [...references(1, 12), ...references(100, 105)]);
      const output = capturedOutput();
      const both = await importLedger(warehouse, config, shared, { allowOverlap: true }, output.output);
      expect(both.overlap).toEqual(expect.objectContaining({ otherFile: corrected, shared: 12, references: 18 }));
      expect(output.stderr()).toMatch(
        new RegExp(
          /warning: 12 of the 18 references of .*partner-b\.csv \(67%\) are already loaded from /.source +
            /.*march-v2\.csv .*imported anyway \(--allow-overlap\)/.source,
        ),
      );
      expect(await count('SELECT count(*) AS n FROM ledger')).toBe(36);
    },
  );

  it(
    'accepts a file that shares a few references, a re-export ' +
      'of the same path and the same content at another path',
    async () => {
      const march = write('march.csv', references(1, 20));
      await importLedger(warehouse, config, march, {}, capturedOutput().output);
      const april = write('april.csv', [...references(15, 20), ...references(21, 40)]); // 6 of 26 carried over
      expect((await importLedger(warehouse, config, april, {}, capturedOutput().output)).overlap).toBeUndefined();
      write('march.csv', references(1, 19));
      await importLedger(warehouse, config, march, {}, capturedOutput().output);
      expect(await count('SELECT count(*) AS n FROM ledger')).toBe(19 + 26);
      const sameContent = write('march-again.csv', references(1, 19));
      expect((await importLedger(warehouse, config, sameContent, {}, capturedOutput().output)).replaced).toMatchObject({
        sourceFile: march,
      });
      expect(await count('SELECT count(*) AS n FROM ledger')).toBe(19 + 26);
    },
  );

  it('--instead-of a path nothing was imported from is bad usage', async () => {
    const file = write('one.csv', references(1, 3));
    const error = await importLedger(
      warehouse,
      config,
      file,
      { insteadOf: path.join(dir.dir, 'never.csv') },
      capturedOutput().output,
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toMatch(/--instead-of .*never\.csv: nothing is loaded from that path/);
  });
});
