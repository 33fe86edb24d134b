/** The hint an out-of-memory gets: raise memoryLimit, not "fix the SQL"; free disk when the spill folder is full. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, test } from 'vitest';
import { outOfMemoryHint } from '../../core/errors.js';
import { Warehouse } from '../../core/warehouse.js';

test('a real DuckDB out-of-memory error gets the memoryLimit hint; any other error none', async () => {
  const warehouse = await Warehouse.open(':memory:', { memoryLimit: '2MB', applySchema: false });
  try {
    const outOfMemory = await warehouse
      .run('CREATE TABLE big AS SELECT range AS i, md5(range::VARCHAR) AS m FROM range(2000000) ORDER BY m')
      .catch((error: unknown) => error);
    expect(outOfMemoryHint(outOfMemory)).toMatch(
      /raise it in the config \(e\.g\. "memoryLimit": "3GB"\) or with PINRECON_MEMORY_LIMIT/,
    );
    expect(outOfMemoryHint(outOfMemory, 'auto: 512MiB for 0 sales')).toMatch(
      /more memory than memoryLimit \(auto: 512MiB for 0 sales\) allows/,
    );
    const syntax = await warehouse.run('SELEC 1').catch((error: unknown) => error);
    expect(outOfMemoryHint(syntax)).toBeUndefined();
  } finally {
    warehouse.close();
  }
});

test('a spill folder that filled its disk allowance gets the free-disk hint, naming the folder', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'pinrecon-spill-'));
  const warehouse = await Warehouse.open(path.join(dir, 'pinrecon.duckdb'), {
    memoryLimit: '32MB',
    applySchema: false,
  });
  try {
    // The disk allowance DuckDB takes from the free space, made small: the sort must spill more than it allows.
    await warehouse.run("SET max_temp_directory_size = '8MB'");
    const full = await warehouse
      .run('CREATE TABLE big AS SELECT range AS i, md5(range::VARCHAR) AS m FROM range(3000000) ORDER BY m')
      .catch((error: unknown) => error);
    const hint = outOfMemoryHint(full, '32MB');
    expect(hint).toMatch(/spill folder \(the database file's name plus "\.tmp", beside it\) reached the disk space/);
    expect(hint).toMatch(/free space there, or raise memoryLimit \(32MB\) so less spills/);
  } finally {
    warehouse.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
