/** The hint an out-of-memory failure gets: raise memoryLimit, not "fix the SQL". */
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
