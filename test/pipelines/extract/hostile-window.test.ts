/**
 * Issue 34 items 1 and 7: a window answered by a hostile provider, extracted over real HTTP into a real DuckDB
 * file in `hash` mode. The key member spelled escaped or in another case, a key sent as a number or an array, and a
 * lone surrogate escape in one record: the window loads, that record alone is quarantined, and no file under the
 * folder (landing, database) holds a whole PIN, nor does any table.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { gunzipSync, gzipSync } from 'node:zlib';
import path from 'node:path';
import { afterAll, afterEach, expect, test } from 'vitest';
import { withWarehouse } from '../../../core/warehouse.js';
import { extractSales } from '../../../pipelines/extract/extract.js';
import { landedSalesFiles } from '../../../pipelines/extract/landing.js';
import { rebuildFromLanding } from '../../../pipelines/extract/rebuild.js';
import { capturedOutput, extractConfig, tempDir } from '../../support/extract.js';
import { wholeKeysUnder } from '../../support/key-scan.js';
import { authorized, closeScripted, IDENTIFIER, SECRET, sale, setup } from '../../support/scripted-upstream.js';
import { maskPin } from '../../../core/masking.js';

const dir = tempDir('hostile-window');
afterEach(closeScripted);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const pins = ['ESCAPED-NAME-PIN-01', 'UPPER-CASE-PIN-02', '123456789012345678', 'ARRAY-PIN-0004', 'LONE-SURR-PIN-05'];

/** One record as JSON text, its key member written as `member: value` (raw JSON). */
function record(id: number, member: string, value: string, productName = 'Gift card'): string {
  const text = JSON.stringify({ ...sale(id, `PO-${id}`), productName, key: '@' });
  return text.replace('"key":"@"', `${member}:${value}`);
}

test(
  'escaped and upper-case key names, a number and an array ' +
    'as key, a lone surrogate: masked, one record quarantined',
  async () => {
    const body = `[${[
      record(1, '"k\\u0065y"', JSON.stringify(pins[0])),
      record(2, '"KEY"', JSON.stringify(pins[1])),
      record(3, '"key"', pins[2]!),
      record(4, '"Key"', `[${JSON.stringify(pins[3])}]`),
      record(5, '"key"', JSON.stringify(pins[4]), 'bad \\ud800 text'),
    ].join(',')}]`;
    const { upstream } = await setup((hit, res, up) => {
      if (!authorized(hit, res, up)) return;
      res.writeHead(200, { 'content-type': 'application/json' });
      // The window by paid date answers the records, the one by creation date nothing.
      res.end(hit.query.get('searchIsByCreateDate') === 'true' ? '[]' : body);
    });
    const config = extractConfig(dir, upstream.url, {
      api: { identifier: IDENTIFIER, secret: SECRET },
      extract: { landingDir: path.join(dir, 'landing') },
    });
    const { output } = capturedOutput();
    const summary = await withWarehouse(config.database, { timezone: config.timezone }, (warehouse) =>
      extractSales(
        warehouse,
        config,
        { from: '2024-03-01', to: '2024-03-01', by: 'both', today: '2024-06-01' },
        output,
      ),
    );
    expect(summary).toMatchObject({ records: 5, loaded: 4, notLoaded: 1, quarantined: 1 });
    const tables = await withWarehouse(config.database, { readOnly: true, timezone: config.timezone }, async (w) => ({
      sales: await w.all('SELECT transaction_id, key FROM sales ORDER BY transaction_id'),
      quarantine: await w.all<{ transaction_id: string; reason: string; raw: string }>(
        'SELECT transaction_id, reason, raw FROM sales_quarantine',
      ),
    }));
    expect(tables.sales).toEqual([
      { transaction_id: '1', key: maskPin(pins[0]!) },
      { transaction_id: '2', key: null },
      { transaction_id: '3', key: maskPin(pins[2]!) },
      { transaction_id: '4', key: null },
    ]);
    expect(tables.quarantine).toHaveLength(1);
    expect(tables.quarantine[0]).toMatchObject({
      transaction_id: '5',
      reason: expect.stringMatching(/lone surrogate/),
    });
    expect(tables.quarantine[0]!.raw).toContain(maskPin(pins[4]!));
    for (const { raw } of tables.quarantine) for (const pin of pins) expect(raw).not.toContain(pin);
    expect(wholeKeysUnder(dir, new Set(pins))).toEqual([]);

    // A file landed before the guard (its lone surrogate raw) is made text in place by --from-landing, then loaded.
    const landed = landedSalesFiles(path.join(dir, 'landing')).find((f) => f.record.window?.flag === 'paid')!;
    const raw = gunzipSync(readFileSync(landed.path)).toString('utf8');
    writeFileSync(landed.path, gzipSync(raw.replace('\\\\ud800', '\\ud800')));
    const rebuilt = { ...config, database: path.join(dir, 'rebuilt', 'pinrecon.duckdb') };
    const said = capturedOutput();
    const again = await withWarehouse(rebuilt.database, { timezone: config.timezone }, (warehouse) =>
      rebuildFromLanding(warehouse, rebuilt, {}, said.output),
    );
    expect(said.text()).toMatch(/held 1 lone surrogate escapes: made text in place before loading/);
    expect(again.files.failed).toEqual([]);
    expect(again).toMatchObject({ records: 5, loaded: 4, quarantined: 1 });
  },
);
