/**
 * The schema is applied once per schema (issue 27: ~60 ms of DDL at every open): a file opened for writing keeps the
 * digest of what was applied to it in `pinrecon_settings`, and an open that finds its own digest there runs no schema
 * script. Another digest (new scripts, other migrations), another zone, another version or a file from before the
 * column: the schema is applied again.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { schemaMigrations } from '../../core/schema-migrations.js';
import { schemaDigest } from '../../core/schema-apply.js';
import { Warehouse } from '../../core/warehouse.js';

const timezone = 'America/Sao_Paulo';
let dir: string;
let file: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'pinrecon-schema-apply-'));
  file = path.join(dir, 'pinrecon.duckdb');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Opens the file, runs `work` on it and closes it. */
async function withOpen<T>(options: Parameters<typeof Warehouse.open>[1], work: (w: Warehouse) => Promise<T>) {
  const warehouse = await Warehouse.open(file, options);
  try {
    return await work(warehouse);
  } finally {
    warehouse.close();
  }
}

/** A view of the schema (050_catalog.sql), dropped: whether the next open made it again says whether scripts ran. */
const dropView = (w: Warehouse) => w.run('DROP VIEW catalog_current_products');
const hasView = async (w: Warehouse) =>
  Boolean(await w.one(`SELECT 1 AS found FROM duckdb_views() WHERE view_name = 'catalog_current_products'`));

test('the first open applies the schema and keeps its digest; the next open with it runs no script', async () => {
  const digest = await withOpen({ timezone }, async (w) => {
    const row = await w.one<{ schema_sha256: string }>('SELECT schema_sha256 FROM pinrecon_settings');
    expect(row?.schema_sha256).toBe(schemaDigest(schemaMigrations));
    await dropView(w);
    return row!.schema_sha256;
  });
  expect(digest).toMatch(/^[0-9a-f]{64}$/);
  expect(await withOpen({ timezone }, hasView)).toBe(false);
});

test.for([
  ['another digest', "UPDATE pinrecon_settings SET schema_sha256 = repeat('0', 64)"],
  ['another version', `UPDATE pinrecon_settings SET version = '0.0.1'`],
  ['a file from before the digest', 'ALTER TABLE pinrecon_settings DROP COLUMN schema_sha256'],
  ['no settings row', 'DELETE FROM pinrecon_settings'],
])('%s: the next open applies the schema again and keeps the digest', async ([, change]) => {
  await withOpen({ timezone }, async (w) => {
    await dropView(w);
    await w.run(change!);
  });
  await withOpen({ timezone }, async (w) => {
    expect(await hasView(w)).toBe(true);
    const row = await w.one('SELECT schema_sha256, timezone FROM pinrecon_settings');
    expect(row).toEqual({ schema_sha256: schemaDigest(schemaMigrations), timezone });
  });
});

test('another zone, other migrations or no zone: the schema is applied again', async () => {
  await withOpen({ timezone }, dropView);
  expect(await withOpen({ timezone: 'Europe/Berlin' }, hasView)).toBe(true);

  await withOpen({ timezone: 'Europe/Berlin' }, dropView);
  const fewer = schemaMigrations.slice(1);
  expect(schemaDigest(fewer)).not.toBe(schemaDigest(schemaMigrations));
  expect(await withOpen({ timezone: 'Europe/Berlin', migrations: fewer }, hasView)).toBe(true);

  // Without a zone nothing is kept, so nothing says the schema is there.
  await withOpen({ timezone: 'Europe/Berlin' }, dropView);
  expect(await withOpen({}, hasView)).toBe(true);
});

test('a read-only open never applies the schema, nor writes the settings', async () => {
  await withOpen({ timezone }, dropView);
  await withOpen({ timezone: 'Europe/Berlin', readOnly: true }, async (w) => {
    expect(await hasView(w)).toBe(false);
    expect(await w.one('SELECT timezone FROM pinrecon_settings')).toEqual({ timezone });
  });
});
