/** `pinrecon query`'s command line in-process (issue 27 item 5): its parse function and its commander wiring. */
import { describe, expect, it } from 'vitest';
import { parseQuery, type QueryOptions } from '../../cli/commands/query.js';
import { UsageError } from '../../core/errors.js';
import { driven, refused } from './drive.js';

const sql = 'SELECT 1';
const defaults: QueryOptions = { format: 'table', maxRows: '1000' };

describe('parseQuery', () => {
  it('defaults to a table of at most 1000 rows; --json means json whatever --format says', () => {
    expect(parseQuery(defaults, sql, true)).toEqual({ sql, format: 'table', maxRows: 1000 });
    expect(parseQuery({ ...defaults, format: 'csv', json: true, live: true }, sql, false)).toEqual({
      sql,
      format: 'json',
      maxRows: 1000,
      live: true,
    });
  });

  it('refuses an unknown format and a max-rows that is not a positive whole number', () => {
    expect(() => parseQuery({ ...defaults, format: 'xml' }, sql, false)).toThrow(
      '--format must be one of table, csv, json, arrow, got "xml".',
    );
    for (const maxRows of ['0', '-3', '2.5', 'many'])
      expect(() => parseQuery({ ...defaults, maxRows }, sql, false), maxRows).toThrow(
        `--max-rows must be a positive whole number, got "${maxRows}".`,
      );
  });

  it('writes Arrow only to a file or a pipe, never onto a terminal', () => {
    expect(parseQuery({ ...defaults, format: 'arrow' }, sql, false).format).toBe('arrow');
    expect(() => parseQuery({ ...defaults, format: 'arrow' }, sql, true)).toThrow(UsageError);
    expect(() => parseQuery({ ...defaults, format: 'arrow' }, sql, true)).toThrow(/redirect it to a file/);
  });
});

describe('pinrecon query (commander, in-process)', () => {
  it('gives the parse the SQL and its options, with their defaults', async () => {
    const plain = await driven<QueryOptions>(['query', sql]);
    expect(parseQuery(plain.options, plain.args[0] as string, false)).toEqual({
      sql,
      format: 'table',
      maxRows: 1000,
    });
    const given = await driven<QueryOptions>(['query', sql, '--format', 'csv', '--max-rows', '5', '--live']);
    expect(parseQuery(given.options, sql, false)).toEqual({
      sql,
      format: 'csv',
      maxRows: 5,
      live: true,
    });
    expect((await refused(['query'])).stderr).toContain("error: missing required argument 'sql'");
  });
});
