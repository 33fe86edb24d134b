/**
 * The runner's inputs that come from configuration and code: `cfg_status_map` (reconciliation.statusMap) and
 * `cfg_exception_types` (the registry of finding types, core/finding-types.ts), each filled by one statement
 * (issue 27: one a row was 16 statements, ~30 ms of every reconcile).
 */
import type { Config } from '../../config/schema.js';
import { findingTypeInputRows } from '../../core/finding-types.js';
import { declareInput } from '../../core/model-runner.js';
import type { Warehouse } from '../../core/warehouse.js';

export async function createConfigInputs(warehouse: Warehouse, config: Config): Promise<void> {
  await declareInput(warehouse, 'cfg_status_map');
  const statuses = Object.entries(config.reconciliation.statusMap);
  if (statuses.length > 0) {
    // Two statuses the same once trimmed: the later one, as inserting them in turn (OR REPLACE) kept.
    const rows = statuses.map((_, i) => `(${placeholders(2 * i, 2)}, ${i})`).join(', ');
    await warehouse.run(
      `INSERT INTO cfg_status_map SELECT trim(status), arg_max(status_class, n)
       FROM (VALUES ${rows}) AS m(status, status_class, n) GROUP BY trim(status)`,
      statuses.flat(),
    );
  }
  await declareInput(warehouse, 'cfg_exception_types');
  const types = findingTypeInputRows();
  await warehouse.run(
    `INSERT INTO cfg_exception_types VALUES ${types.map((_, i) => `(${placeholders(6 * i, 6)})`).join(', ')}`,
    types.flat(),
  );
}

/** "$3, $4": `count` parameters after the first `after`. */
function placeholders(after: number, count: number): string {
  return Array.from({ length: count }, (_, i) => `$${after + i + 1}`).join(', ');
}
