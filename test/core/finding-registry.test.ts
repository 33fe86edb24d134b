/**
 * The registry of finding types (core/finding-types.ts) is the one list: the rule models emit exactly its types,
 * each from its family's model; the cost bridge attributes exactly the types with a bridge step; the data test
 * refuses a type it does not hold; every family has a sheet; the README's table and DATA.md are made from it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import { findingTypeInputRows, findingTypeNames, findingFamilies, findingTypes } from '../../core/finding-types.js';
import { sqlDir } from '../../core/paths.js';
import { detailSheets } from '../../reports/report-sheets.js';
import { dataDocFile, generateReadme, readmeFile, renderFindingTypes } from '../../scripts/data-docs.js';

const intermediate = path.join(sqlDir(), 'intermediate');
const read = (file: string) => readFileSync(file, 'utf8');
/** Without `--` comments, so a type named in prose does not count as emitted. */
const code = (file: string) => read(file).replace(/--[^\n]*/g, '');

/** The rule models: one per family, `int_recon_findings__<family>.sql`. */
const ruleModels = readdirSync(intermediate)
  .filter((f) => /^int_recon_findings__[a-z_]+\.sql$/.test(f))
  .map((f) => ({ family: f.slice('int_recon_findings__'.length, -'.sql'.length), file: path.join(intermediate, f) }));

/** The types a rule model emits: `'type' as exception_type`, or a `(values ('type'), …) as rules (exception_type)`. */
function emittedTypes(sql: string): string[] {
  const single = [...sql.matchAll(/'([a-z_]+)'\s+as\s+exception_type\b/g)].map((m) => m[1]!);
  const listed = [
    ...sql.matchAll(/values\s*((?:\(\s*'[a-z_]+'\s*\)\s*,?\s*)+)\)\s*as\s+\w+\s*\(\s*exception_type\s*\)/g),
  ].flatMap((m) => [...m[1]!.matchAll(/'([a-z_]+)'/g)].map((t) => t[1]!));
  return [...single, ...listed];
}

describe('the registry of finding types', () => {
  it('holds each type once, each of a known family, with bridge steps 1..n once each', () => {
    expect(new Set(findingTypeNames).size).toBe(findingTypeNames.length);
    const families = findingFamilies.map((f) => f.family as string);
    for (const row of findingTypes) expect(families).toContain(row.family);
    const steps = findingTypes.flatMap((r) => (r.bridge ? [r.bridge.step] : [])).sort((a, b) => a - b);
    expect(steps).toEqual(steps.map((_, i) => i + 1));
  });

  it('is what the rule models emit: each type from its family model, and nothing else', () => {
    expect(ruleModels.map((m) => m.family).sort()).toEqual(findingFamilies.map((f) => f.family).sort());
    for (const { family, file } of ruleModels) {
      const expected = findingTypes.filter((r) => r.family === family).map((r) => r.type);
      expect(emittedTypes(code(file)).sort(), `${file} emits the types of the family ${family}`).toEqual(
        [...expected].sort(),
      );
    }
  });

  it(
    'has every rule model unioned by int_recon_findings_detected, ' + 'which takes the family from cfg_exception_types',
    () => {
      const detected = code(path.join(intermediate, 'int_recon_findings_detected.sql'));
      for (const { family } of ruleModels) expect(detected).toContain(`select * from int_recon_findings__${family}\n`);
      expect(detected).toContain('from cfg_exception_types');
      for (const type of findingTypeNames) expect(detected).not.toContain(`'${type}'`);
    },
  );

  it('gives the cost bridge exactly the types with a bridge step', () => {
    const attributed = code(path.join(intermediate, 'int_recon_bridge_items_attributed.sql'));
    const pairs = code(path.join(intermediate, 'int_recon_pairs_compared.sql'));
    const bridgeCase = pairs.slice(0, pairs.indexOf('as bridge_finding_type'));
    const named = [
      ...`${attributed}\n${bridgeCase.slice(bridgeCase.lastIndexOf('case'))}`.matchAll(/then '([a-z_]+)'/g),
    ].map((m) => m[1]!);
    const withStep = findingTypes.filter((r) => r.bridge).map((r) => r.type);
    expect([...new Set(named)].sort()).toEqual([...withStep].sort());
    const bridge = code(path.join(sqlDir(), 'marts', 'recon_bridge.sql'));
    expect(bridge).toContain('from cfg_exception_types');
    for (const type of findingTypeNames) expect(bridge).not.toContain(`'${type}'`);
  });

  it(
    'is what the data test checks against: ' + 'a type not in cfg_exception_types, or of another family, fails it',
    async () => {
      const instance = await DuckDBInstance.create(':memory:');
      const connection = await instance.connect();
      try {
        await connection.run(read(path.join(sqlDir(), 'inputs', 'cfg_exception_types.sql')));
        for (const row of findingTypeInputRows()) {
          const values = row.map((v) =>
            v === null ? 'NULL' : typeof v === 'number' ? String(v) : `'${v.replace(/'/g, "''")}'`,
          );
          await connection.run(`INSERT INTO cfg_exception_types VALUES (${values.join(', ')})`);
        }
        await connection.run(
          `CREATE TEMP TABLE recon_exceptions AS SELECT * FROM (VALUES
           ('f1', 'cost_mismatch', 'amounts', 'R1'), ('f2', 'cost_mismatch', 'status', 'R2'),
           ('f3', 'not_a_type', NULL, 'R3'), ('f4', 'unredeemed_key', 'unredeemed', 'R4'))
         AS t (finding_id, exception_type, family, partner_reference)`,
        );
        const failing = await connection.runAndReadAll(
          read(path.join(sqlDir(), 'tests', 'finding_types_accepted.sql')),
        );
        expect(
          failing
            .getRows()
            .map((r) => r[0])
            .sort(),
        ).toEqual(['f2', 'f3']);
      } finally {
        connection.closeSync();
        instance.closeSync();
      }
    },
  );

  it('has a sheet for every family, titled and described as the registry says', () => {
    const sheets = detailSheets('2026-01', 'UTC');
    for (const family of findingFamilies) {
      const sheet = sheets.find(
        (s) => s.table === 'recon_exceptions' && s.where.includes(`family = '${family.family}'`),
      );
      expect(sheet, `a sheet for the family ${family.family}`).toBeDefined();
      expect(sheet!.title).toBe(family.sheet);
      expect(sheet!.description).toBe(family.description);
    }
  });

  it('is the README table and DATA.md table (run npm run docs:data after changing it)', () => {
    expect(read(readmeFile)).toBe(generateReadme());
    expect(read(dataDocFile)).toContain(renderFindingTypes());
    for (const row of findingTypes)
      expect(read(readmeFile)).toContain(`| \`${row.type}\` | ${row.means} | ${row.todo} |`);
  });
});
