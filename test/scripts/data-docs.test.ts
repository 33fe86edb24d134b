/**
 * docs/DATA.md never drifts from the marts: it must be exactly what `npm run docs:data` generates from
 * scripts/DATA.template.md and sql/marts/*.yml, and the generator refuses a mart column that is not documented
 * (or documented but not in the table).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { dataDocFile, generateDataDoc, readMartDoc, renderMart, schemaColumns } from '../../scripts/data-docs.js';

const marts = [
  'recon_exceptions',
  'recon_summary',
  'recon_bridge',
  'recon_aging',
  'recon_exception_history',
  'recon_runs',
];

describe('docs/DATA.md', () => {
  it('is what npm run docs:data generates (run it after changing a mart .yml or the template)', async () => {
    expect(readFileSync(dataDocFile, 'utf8')).toBe(await generateDataDoc());
  });

  it('documents every column of every mart table, in the table order', async () => {
    const tables = await schemaColumns();
    const generated = await generateDataDoc();
    for (const mart of marts) {
      const section = renderMart(readMartDoc(mart), tables.get(mart));
      expect(generated).toContain(section);
      const rows = section
        .split('\n')
        .slice(3)
        .map((line) => line.split(' | ')[0]!.slice(2));
      expect(rows).toEqual(tables.get(mart)!.map((c) => c.name));
    }
  });
});

describe('renderMart', () => {
  const columns = [
    { name: 'period', type: 'VARCHAR' },
    { name: 'amount', type: 'DECIMAL(18,4)' },
  ];

  it('renders the grain as the heading and a row per column, escaping pipes', () => {
    const doc = {
      name: 'm',
      description: 'one row per x',
      columns: [
        { name: 'period', description: 'YYYY-MM' },
        { name: 'amount', description: 'a | b' },
      ],
    };
    expect(renderMart(doc, columns)).toBe(
      [
        '### `m` — one row per x',
        '| column | type | meaning |',
        '|---|---|---|',
        '| period | VARCHAR | YYYY-MM |',
        '| amount | DECIMAL(18,4) | a \\| b |',
      ].join('\n'),
    );
  });

  it('fails on a table column the .yml does not document, naming it', () => {
    const doc = { name: 'm', description: 'one row per x', columns: [{ name: 'period', description: 'YYYY-MM' }] };
    expect(() => renderMart(doc, columns)).toThrow(/does not document the column\(s\) amount of m/);
  });

  it('fails on a documented column the table does not have, naming it', () => {
    const doc = {
      name: 'm',
      description: 'one row per x',
      columns: [
        { name: 'period', description: 'YYYY-MM' },
        { name: 'amount', description: 'money' },
        { name: 'gone', description: 'was dropped' },
      ],
    };
    expect(() => renderMart(doc, columns)).toThrow(/documents gone, which the table m/);
  });

  it('fails on a .yml about a table sql/schema/ does not create', () => {
    expect(() => renderMart({ name: 'nope', description: 'x', columns: [] }, undefined)).toThrow(
      /creates no such table/,
    );
  });
});
