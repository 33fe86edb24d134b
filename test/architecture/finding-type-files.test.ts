/**
 * A finding type is one registry row, one rule in its family's model and a test (issue 27): the code that names a
 * type — a quoted literal or a property of that name, comments aside — is core/finding-types.ts and its family's
 * rule model, plus the cost bridge's attribution for a type with a bridge step, plus the few features that exist
 * for one type only (listed below, each with why). Every other per-type rule (amount, pending, reversal, sheet,
 * family list) is read from the registry, so a new type needs no edit there. Tests, the simulator and the benches
 * name types freely; the README and docs/DATA.md are generated from the registry.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { findingTypes, type FindingTypeRow } from '../../core/finding-types.js';

const root = path.resolve(__dirname, '../..');
/** The product's code: what runs (doubles/ and bench/ are test support, docs are generated). */
const codeRoots = ['cli', 'config', 'core', 'pipelines', 'reports', 'scripts', 'sources', 'sql'];

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? filesUnder(full) : [full];
  });
}

/** The text without comments, so a type named in prose does not count. */
function withoutComments(text: string, sql: boolean): string {
  if (sql) return text.replace(/--[^\n]*/g, '');
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/[^\n]*/g, '$1');
}
const code = (file: string) => withoutComments(readFileSync(file, 'utf8'), file.endsWith('.sql'));

/** Whether code names `type`: as a quoted literal, or as a property (`byType.<type>`). */
const namesType = (text: string, type: string) => new RegExp(`['"\`]${type}['"\`]|\\.${type}\\b`).test(text);

const sources = codeRoots
  .flatMap((dir) => filesUnder(path.join(root, dir)))
  .filter((file) => /\.(ts|sql)$/.test(file))
  .map((file) => ({ file: path.relative(root, file).split(path.sep).join('/'), code: code(file) }));

/** The files whose code names `type`. */
function filesNaming(type: string): string[] {
  return sources
    .filter((source) => namesType(source.code, type))
    .map((source) => source.file)
    .sort();
}

/** The files every type of a family needs: its registry row and its rule. */
const ruleFiles = (row: FindingTypeRow) => [
  'core/finding-types.ts',
  `sql/intermediate/int_recon_findings__${row.family}.sql`,
];

/** A type with a bridge step is attributed to it: by the pair comparison (a pair's one finding) or per item. */
const bridgeFiles = [
  'sql/intermediate/int_recon_bridge_items_attributed.sql',
  'sql/intermediate/int_recon_pairs_compared.sql',
];

/** Features that exist for one type only, and why. */
const ownFeatures: Record<string, string[]> = {
  // its proof of absence: the windows and the lookup (README "Proof of absence"), counted by reconcile and month-end
  missing_at_provider: [
    'pipelines/ops/month-end.ts',
    'pipelines/reconcile/reconcile.ts',
    'sql/report/missing_proof.sql',
    'sql/tests/missing_proof_accepted.sql',
  ],
  // the aging mart is the unredeemed keys by age bucket
  unredeemed_key: ['sql/marts/recon_aging.sql'],
  // the demo walks one finding of this type through decide → plan → approve → execute
  refunded_not_reversed: ['pipelines/ops/demo.ts'],
};

describe('the files a finding type needs', () => {
  it('are its registry row and its rule, the bridge attribution for a bridge step, and its own features', () => {
    for (const row of findingTypes as readonly FindingTypeRow[]) {
      const allowed = new Set([
        ...ruleFiles(row),
        ...(row.bridge ? bridgeFiles : []),
        ...(ownFeatures[row.type] ?? []),
      ]);
      const outside = filesNaming(row.type).filter((file) => !allowed.has(file));
      expect(outside, `${row.type} is named outside its registry row and rule`).toEqual([]);
    }
  });

  it('for a type of no bridge step and no feature of its own: exactly its registry row and its rule model', () => {
    const plain = (findingTypes as readonly FindingTypeRow[]).filter((r) => !r.bridge && !ownFeatures[r.type]);
    expect(plain.length).toBeGreaterThan(0);
    for (const row of plain) expect(filesNaming(row.type), row.type).toEqual(ruleFiles(row).sort());
  });

  it('lists own features only for types that still have them (an entry no file needs is removed)', () => {
    for (const [type, files] of Object.entries(ownFeatures))
      for (const file of files) expect(filesNaming(type), `${type} in ${file}`).toContain(file);
  });

  it('finds a type named as a literal or a property, and not one named only in a comment', () => {
    const named = (text: string, sql: boolean) => namesType(withoutComments(text, sql), 'cost_mismatch');
    expect(named("where exception_type = 'cost_mismatch'", true)).toBe(true);
    expect(named('-- a cost_mismatch is raised when', true)).toBe(false);
    expect(named('r.byType.cost_mismatch > 0', false)).toBe(true);
    expect(named('/** a cost_mismatch */ const x = 1; // cost_mismatch', false)).toBe(false);
    expect(named('cost_mismatches', false)).toBe(false);
  });
});
