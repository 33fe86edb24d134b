/**
 * `pinrecon query` as users run it (the built CLI against a real DuckDB file): table, csv and json output,
 * PIN columns masked to their last 4 characters, writes refused, the published snapshot read by default
 * (the main file with --live, or before any snapshot exists).
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishSnapshot } from '../../core/warehouse.js';
import { pinMaskingSql } from '../../pipelines/analysts/query.js';
import { cliPath, runCli } from '../support/cli.js';
import { runCommand } from '../support/cli-in-process.js';
import { holdWriteLock, openWarehouse, temporaryDirectory, testConfig } from '../support/ledger.js';

const temp = temporaryDirectory('query');
const config = testConfig(temp.dir);
const configFile = path.join(temp.dir, 'pinrecon.config.json');

/** The first case spawns the CLI (its wiring); the others run the same command in this process. */
function query(...args: string[]) {
  return runCommand(['query', ...args, '--config', configFile]);
}

beforeAll(async () => {
  writeFileSync(configFile, JSON.stringify({ database: config.database }));
  const warehouse = await openWarehouse(config);
  try {
    await warehouse.run(`INSERT INTO sales (transaction_id, partner_reference, product_id, sales_price,
        partner_cost_price, status, key, key_sent_to_customer, first_seen_at, last_seen_at)
      VALUES (1, 'R-1', 10, 12.5, 10.0001, 'Redeemed by Client', 'ABCD-EFGH-1234', true, now(), now()),
             (2, 'R-2, "quoted"', 11, 7, 6, 'delivered', 'WXYZ-9876', false, now(), now()),
             (3, 'R-3', 12, 1, 1, 'delivered', NULL, false, now(), now())`);
    await publishSnapshot(warehouse);
  } finally {
    warehouse.close();
  }
});
afterAll(() => temp.remove());

describe('pinrecon query', () => {
  it('prints a table by default, exact decimals, PINs as their last 4 characters', async () => {
    const result = await runCli([
      'query',
      'SELECT transaction_id, sales_price, partner_cost_price, key, key_sent_to_customer FROM sales ORDER BY 1',
      '--config',
      configFile,
    ]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      [
        'transaction_id  sales_price  partner_cost_price  key       key_sent_to_customer',
        '--------------  -----------  ------------------  --------  --------------------',
        '1               12.5000      10.0001             ****1234  true',
        '2               7.0000       6.0000              ****9876  false',
        '3               1.0000       1.0000                        false',
        '',
      ].join('\n'),
    );
    expect(result.stdout).not.toMatch(/ABCD|WXYZ/);
  });

  it(
    'writes CSV with quoting and JSON (also with --json); ' +
      'masks any column matching /pin/ and PIN fields of structs',
    async () => {
      const sql = `SELECT transaction_id AS id, partner_reference, key AS my_pin, {'key': key, 'n': 1} AS s
        FROM sales WHERE key IS NOT NULL ORDER BY 1`;
      const csv = await query(sql, '--format', 'csv');
      expect(csv.code).toBe(0);
      expect(csv.stdout).toBe(
        'id,partner_reference,my_pin,s\n1,R-1,****1234,"{""key"":""****1234"",""n"":1}"\n2,"R-2, ' +
          '""quoted""",****9876,"{""key"":""****9876"",""n"":1}"\n',
      );
      const json = await query(sql, '--format', 'json');
      expect(json.code).toBe(0);
      expect(JSON.parse(json.stdout)).toEqual([
        { id: '1', partner_reference: 'R-1', my_pin: '****1234', s: { key: '****1234', n: 1 } },
        { id: '2', partner_reference: 'R-2, "quoted"', my_pin: '****9876', s: { key: '****9876', n: 1 } },
      ]);
      expect(JSON.parse((await query(sql, '--json')).stdout)).toEqual(JSON.parse(json.stdout));
      expect(JSON.parse((await query('SELECT 1 AS a WHERE false', '--format', 'json')).stdout)).toEqual([]);
    },
  );

  it(
    'neutralises formulas in CSV cells and strips terminal ' + 'escapes and control characters from everything printed',
    async () => {
      const cells = `'=HYPERLINK(''http://evil'')' AS a, '+cmd|calc' AS b, '-2+3' AS c, '@SUM(A1)' AS d,
        '-12.50' AS e, sales_price * -1 AS f,
        'x' || chr(27) || '[2J' || chr(27) || ']0;owned' || chr(7) || 'y' || chr(13) || 'z' AS g`;
      const csv = await query(`SELECT ${cells} FROM sales WHERE transaction_id = 1`, '--format', 'csv');
      expect(csv.code, csv.stderr).toBe(0);
      expect(csv.stdout).toBe(
        `a,b,c,d,e,f,g\n'=HYPERLINK('http://evil'),'+cmd|calc,'-2+3,'@SUM(A1),-12.50,-12.5000,xyz\n`,
      );
      const table = await query(`SELECT ${cells} FROM sales WHERE transaction_id = 1`);
      expect(table.stdout).toContain('xyz');
      expect(table.stdout).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f]/);
      const failing = await query(`SELECT "a${'\x1b'}]0;owned${'\x07'}${'\x1b'}[2Jb" FROM sales`);
      expect(failing.code).toBe(2);
      expect(failing.stderr).toContain('a]0;owned[2Jb'.replace(']0;owned[2J', ''));
      expect(failing.stderr).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f]/);
    },
  );

  it(
    'masks any text value equal to a stored PIN (any case, spaces around), ' +
      'whatever the column is called; other text is left alone',
    async () => {
      const sql = `SELECT transaction_id AS id, key || '' AS k, lower(key) AS l, ' ' || lower(key) || ' ' AS spaced,
        partner_reference AS ref, 'ABCD-EFGH-1234-not' AS near FROM sales WHERE transaction_id < 3 ORDER BY 1`;
      const json = await query(sql, '--json');
      expect(json.code, json.stderr).toBe(0);
      expect(JSON.parse(json.stdout)).toEqual([
        { id: '1', k: '****1234', l: '****1234', spaced: '****1234', ref: 'R-1', near: 'ABCD-EFGH-1234-not' },
        { id: '2', k: '****9876', l: '****9876', spaced: '****9876', ref: 'R-2, "quoted"', near: 'ABCD-EFGH-1234-not' },
      ]);
      // Through a CTE, a trailing comment, and CALL of a table function.
      const cte = await query(
        `WITH x AS (SELECT key AS secret FROM sales) SELECT upper(secret) AS s FROM x WHERE secret IS NOT NULL ORDER ` +
          `BY 1 -- done`,
        '--format',
        'csv',
      );
      expect(cte.stdout).toBe('s\n****1234\n****9876\n');
      const call = await query(
        `CALL query('SELECT key || '''' AS a FROM sales WHERE key IS NOT NULL ORDER BY 1')`,
        '--format',
        'csv',
      );
      expect(call.code, call.stderr).toBe(0);
      expect(call.stdout).toBe('a\n****1234\n****9876\n');
      expect(`${json.stdout}${cte.stdout}${call.stdout}`.replaceAll('ABCD-EFGH-1234-not', '')).not.toMatch(
        /ABCD-EFGH-1234|WXYZ-9876/i,
      );
    },
  );

  it('looks each text value up among the stored PINs once, though the key masking names it three times', async () => {
    const warehouse = await openWarehouse(config);
    try {
      const columns = ['a', 'b', 'c'].map((name) => ({ name, isText: true }));
      const sql = pinMaskingSql('SELECT key AS a, status AS b, partner_reference AS c FROM sales', columns, true);
      const plan = await warehouse.all<{ explain_value: string }>(`EXPLAIN ${sql}`);
      // A look-up is a mark join, each with a hash table of every stored PIN: written into each place the JSON key
      // masking names its value, there were nine (1M sales as Arrow over whole keys twice as slow).
      expect(
        plan
          .map((row) => row.explain_value)
          .join('\n')
          .match(/\bMARK\b/g),
      ).toHaveLength(columns.length);
    } finally {
      warehouse.close();
    }
  });

  it('runs queries on a database without a sales table (nothing to mask by value)', async () => {
    const bare = path.join(temp.dir, 'bare');
    const bareConfig = path.join(temp.dir, 'bare.config.json');
    writeFileSync(bareConfig, JSON.stringify({ database: path.join(bare, 'plain.duckdb') }));
    const setup = spawnSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        "import { DuckDBInstance } from '@duckdb/node-api'; import { mkdirSync } from 'node:fs'; " +
          `mkdirSync(${JSON.stringify(bare)}); ` +
          `const i = await DuckDBInstance.create(${JSON.stringify(path.join(bare, 'plain.duckdb'))}); ` +
          'const c = await i.connect(); await c.run("CREATE TABLE t AS SELECT \'hello\' AS s"); ' +
          'c.closeSync(); i.closeSync();',
      ],
      { cwd: path.dirname(cliPath), encoding: 'utf8' },
    );
    expect(setup.status, setup.stderr).toBe(0);
    const result = await runCli(['query', 'SELECT s FROM t', '--format', 'csv', '--config', bareConfig]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('s\nhello\n');
  });

  it('refuses statements that write, several statements, and bad SQL, with exit 2 and a clear message', async () => {
    for (const sql of [
      'DELETE FROM sales',
      'CREATE TABLE x (a INT)',
      "COPY sales TO '/tmp/pinrecon-leak.csv'",
      'DROP TABLE sales',
      "ATTACH 'other.duckdb'",
    ]) {
      const result = await query(sql);
      expect(result.code, sql).toBe(2);
      expect(result.stderr, sql).toMatch(/pinrecon query only reads: .* is refused/);
    }
    const several = await query('SELECT 1; SELECT 2');
    expect(several.code).toBe(2);
    expect(several.stderr).toMatch(/one statement at a time; this query holds 2/);
    const bad = await query('SELEC 1');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/The query failed: Parser Error/);
    // DESCRIBE, SHOW and friends are reads.
    expect((await query('DESCRIBE ledger')).code).toBe(0);
    expect((await query('SHOW TABLES')).stdout).toMatch(/ledger_rejects/);
  });

  it(
    'reads the published snapshot (saying which and how fresh, ' + 'unless --json), the main file with --live',
    async () => {
      // The main file gains a row the snapshot does not have.
      const warehouse = await openWarehouse(config);
      await warehouse.run(`INSERT INTO sales (transaction_id, first_seen_at, last_seen_at) VALUES (4, now(), now())`);
      warehouse.close();
      const result = await query('SELECT count(*) AS n FROM sales', '--format', 'csv');
      expect(result.code).toBe(0);
      expect(result.stdout).toBe('n\n3\n');
      expect(result.stderr).toMatch(
        new RegExp(
          /reading the snapshot .*pinrecon.snapshot.duckdb, published \d{4}-\d\d-\d\dT[\d:.]+Z \(\d+ /.source +
            /(s|min) ago\) after the last job/.source,
        ),
      ); // minutes when the machine is busy
      const json = await query('SELECT count(*) AS n FROM sales', '--json');
      expect(JSON.parse(json.stdout)).toEqual([{ n: '3' }]);
      // --json drops the snapshot line; this database holds whole keys, which is warned about whatever the format.
      expect(json.stderr).not.toMatch(/snapshot/);
      const live = await query('SELECT count(*) AS n FROM sales', '--format', 'csv', '--live');
      expect(live.code).toBe(0);
      expect(live.stdout).toBe('n\n4\n');
      expect(live.stderr).not.toMatch(/snapshot/);

      // A job holding the main file: the snapshot still answers; --live says what to do.
      const holder = await holdWriteLock(config.database);
      try {
        expect((await query('SELECT count(*) AS n FROM sales', '--format', 'csv')).stdout).toBe('n\n3\n');
        const busy = await query('SELECT count(*) AS n FROM sales', '--live');
        expect(busy.code).toBe(1);
        expect(busy.stderr).toMatch(
          new RegExp(
            /The database .*pinrecon.duckdb is in use by a running job.\n\S+ error: what to do: Drop --live /.source +
              /to read the snapshot .*pinrecon.snapshot.duckdb/.source,
          ),
        );
      } finally {
        holder.kill();
        await new Promise((resolve) => holder.once('exit', resolve));
      }
    },
  );

  it('reads the main file read-only before any snapshot has been published', async () => {
    const fresh = testConfig(path.join(temp.dir, 'fresh'));
    const freshConfig = path.join(temp.dir, 'fresh.config.json');
    writeFileSync(freshConfig, JSON.stringify({ database: fresh.database }));
    const warehouse = await openWarehouse(fresh);
    await warehouse.run(`INSERT INTO sales (transaction_id, first_seen_at, last_seen_at) VALUES (7, now(), now())`);
    warehouse.close();
    const result = await runCli([
      'query',
      'SELECT transaction_id FROM sales',
      '--format',
      'csv',
      '--config',
      freshConfig,
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('transaction_id\n7\n');
    // The file was made by this test under its umask: query makes it private and says so; nothing else.
    // Off a terminal every line is timestamped and the config used is said (issue 31).
    const others = result.stderr.replace(/^\S+ (warning: .* was readable by others .*|config: .*)\n/gm, '');
    expect(others).toBe('');
  });

  it('says there is no database yet', async () => {
    const missing = path.join(temp.dir, 'none.config.json');
    writeFileSync(missing, JSON.stringify({ database: path.join(temp.dir, 'absent.duckdb') }));
    const result = await runCli(['query', 'SELECT 1', '--config', missing]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/There is no database at .*absent.duckdb yet/);
  });
});
