/**
 * Fresh databases for the tests, as copies of a template made once per worker (issue 27): opening a new file makes
 * its whole schema (0.3-0.8 s a time on the 2-core machine), copying a file that has it and opening that 0.15 s. A
 * template is made by Warehouse.open itself (then `prepare`, if given), so a copy is what a fresh open would make;
 * it is made in the fixtures' zone, America/Sao_Paulo (a later open in another zone records that zone).
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Warehouse } from '../../core/warehouse.js';

const templates = new Map<string, Promise<string>>();

/**
 * Places at `file` (which must not exist) a copy of the template `name`: the schema, then what `prepare` adds
 * (the same for every copy of that name).
 */
export async function copyOfTemplate(
  file: string,
  name = 'schema',
  prepare?: (warehouse: Warehouse) => Promise<void>,
): Promise<void> {
  if (existsSync(file)) throw new Error(`${file} exists: a template is copied only where there is no database`);
  let template = templates.get(name);
  if (!template) {
    template = (async () => {
      const made = path.join(mkdtempSync(path.join(tmpdir(), `pinrecon-template-${name}-`)), 'template.duckdb');
      const warehouse = await Warehouse.open(made, { timezone: 'America/Sao_Paulo' });
      try {
        await prepare?.(warehouse);
      } finally {
        warehouse.close();
      }
      return made;
    })();
    templates.set(name, template);
  }
  // As Warehouse.open does, the database's folder is made when absent.
  mkdirSync(path.dirname(file), { recursive: true });
  copyFileSync(await template, file);
}
