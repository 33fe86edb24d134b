/**
 * The audit chain over a period's decisions (issue 14 item 5): every recorded decision links to the one
 * before it by hash, in the order recorded; `verifyPeriod` recomputes it and names the first row that was
 * changed, removed or slipped in, and a sign-off whose signed rows changed (but not one whose table gained a
 * column since); a database from before the chain gets its decisions chained once when opened.
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, test } from 'vitest';
import { canonicalDecision, decisionSha256 } from '../../../core/decision-chain.js';
import { Warehouse } from '../../../core/warehouse.js';
import { closePeriod } from '../../../pipelines/close/close.js';
import { decideFindings } from '../../../pipelines/decisions/findings.js';
import { reconcile } from '../../../pipelines/reconcile/reconcile.js';
import { verifyPeriod } from '../../../pipelines/close/verify.js';
import { capturingOutput, fixtureForEachTest } from '../../support/reconcile.js';
import { asOf, fillFindings, findingIdOf, period } from '../../support/decisions.js';

const f = fixtureForEachTest();

test('the canonical form of a decision is a JSON array in a fixed order; its sha256 is the row hash', () => {
  const row = {
    period: '2024-03',
    chainPosition: 1,
    findingId: 'f1',
    decision: 'claim',
    note: 'charged "9.00"',
    owner: null,
    expectedClearBy: null,
    decidedBy: 'ana',
    decidedAt: '2024-04-05T12:00:00.123000Z',
    source: 'cli',
    prevSha256: null,
  };
  expect(canonicalDecision(row)).toBe(
    '["pinrecon.decision.v1","2024-03",1,"f1","claim","charged ' +
      '\\"9.00\\"",null,null,"ana","2024-04-05T12:00:00.123000Z","cli",null]',
  );
  expect(decisionSha256(row)).toMatch(/^[0-9a-f]{64}$/);
  expect(decisionSha256({ ...row, note: 'charged 9.00' })).not.toBe(decisionSha256(row));
});

test('decisions are chained in the order recorded; verify names the first row changed or slipped in', async () => {
  const { costBreak, missing } = await fillFindings(f);
  await reconcile(f.warehouse, f.config, { period, asOf }, capturingOutput().output);
  const costId = await findingIdOf(f, costBreak.partner_reference);
  const missingId = await findingIdOf(f, missing.partner_reference);
  await decideFindings(f.warehouse, [costId, missingId], { decision: 'investigating', by: 'ana' });
  await decideFindings(f.warehouse, [costId], { decision: 'claim', note: 'charged 9.00', by: 'rui' });

  const chain = await f.warehouse.all<{
    chain_position: string;
    finding_id: string;
    prev_sha256: string | null;
    row_sha256: string;
  }>(
    'SELECT chain_position::VARCHAR AS chain_position, finding_id, prev_sha256, row_sha256 FROM recon_decisions ' +
      'ORDER BY chain_position',
  );
  expect(chain.map((r) => r.chain_position)).toEqual(['1', '2', '3']);
  expect(chain[0]!.prev_sha256).toBeNull();
  expect(chain[1]!.prev_sha256).toBe(chain[0]!.row_sha256);
  expect(chain[2]!.prev_sha256).toBe(chain[1]!.row_sha256);
  // The finding carries the hash of its current decision (the workbook's Decision ref).
  expect(
    await f.warehouse.one('SELECT decided_by, decision_sha256 FROM recon_exceptions WHERE finding_id = $1', [costId]),
  ).toEqual({
    decided_by: 'rui',
    decision_sha256: chain[2]!.row_sha256,
  });

  const clean = await verifyPeriod(f.warehouse, period);
  expect(clean).toMatchObject({
    ok: true,
    decisions: 3,
    chainHead: { position: 3, sha256: chain[2]!.row_sha256 },
    mismatches: [],
  });

  // Someone rewrites who took the first decision, by SQL: that row, and only it, is named.
  await f.warehouse.run(`UPDATE recon_decisions SET decided_by = 'mallory' WHERE chain_position = 1`);
  const edited = await verifyPeriod(f.warehouse, period);
  expect(edited.ok).toBe(false);
  expect(edited.mismatches).toHaveLength(1);
  expect(edited.mismatches[0]).toMatchObject({
    kind: 'decision',
    reason: expect.stringContaining('does not hash to its row_sha256'),
  });
  expect(edited.mismatches[0]!.subject).toContain(
    `recon_decisions row 1 of ${period}: finding ${chain[0]!.finding_id}`,
  );
  await f.warehouse.run(`UPDATE recon_decisions SET decided_by = 'ana' WHERE chain_position = 1`);
  expect((await verifyPeriod(f.warehouse, period)).ok).toBe(true);

  // A row inserted outside pinrecon has no place in the chain.
  await f.warehouse.run(
    `INSERT INTO recon_decisions (finding_id, period, decision, decided_by, decided_at, source) VALUES ($1, $2, ` +
      `'write_off', 'mallory', now(), 'cli')`,
    [missingId, period],
  );
  const slipped = await verifyPeriod(f.warehouse, period);
  expect(slipped.mismatches.map((m) => m.reason)).toContain(
    'it is not chained (no row_sha256): it was written outside pinrecon',
  );
  expect(slipped.mismatches.find((m) => m.reason.startsWith('it is not chained'))!.subject).toContain(
    `finding ${missingId}, write_off by mallory`,
  );
});

test('a database from before the chain has its decisions chained once, when it is opened', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'pinrecon-chain-'));
  const file = path.join(dir, 'old.duckdb');
  try {
    // recon_decisions as it was before the chain's columns, with three decisions of two periods.
    const instance = await DuckDBInstance.create(file);
    const connection = await instance.connect();
    await connection.run(`CREATE TABLE recon_decisions (finding_id VARCHAR NOT NULL, period VARCHAR NOT NULL,
      decision VARCHAR NOT NULL, note VARCHAR, owner VARCHAR, expected_clear_by DATE, decided_by VARCHAR NOT NULL,
      decided_at TIMESTAMPTZ NOT NULL, source VARCHAR NOT NULL, superseded_at TIMESTAMPTZ)`);
    await connection.run(`INSERT INTO recon_decisions VALUES
      ('a', '2024-03', 'investigating', NULL, NULL, NULL, 'ana', '2024-04-01 10:00:00+00', 'cli',
        '2024-04-02 10:00:00+00'),
      ('b', '2024-04', 'timing', NULL, 'rui', '2024-05-10', 'rui', '2024-04-01 11:00:00+00', 'cli', NULL),
      ('a', '2024-03', 'claim', 'charged 9.00', NULL, NULL, 'ana', '2024-04-02 10:00:00+00', 'workbook:x.xlsx#00',
        NULL)`);
    connection.closeSync();
    instance.closeSync();

    const warehouse = await Warehouse.open(file, { timezone: 'America/Sao_Paulo' });
    try {
      const rows = await warehouse.all<{
        period: string;
        finding_id: string;
        chain_position: string;
        prev_sha256: string | null;
        row_sha256: string;
      }>(
        `SELECT period, finding_id, chain_position::VARCHAR AS chain_position, prev_sha256, row_sha256 FROM ` +
          `recon_decisions ORDER BY period, chain_position`,
      );
      expect(rows.map((r) => [r.period, r.finding_id, r.chain_position])).toEqual([
        ['2024-03', 'a', '1'],
        ['2024-03', 'a', '2'],
        ['2024-04', 'b', '1'],
      ]);
      expect(rows[1]!.prev_sha256).toBe(rows[0]!.row_sha256);
      expect(rows[2]!.prev_sha256).toBeNull();
      expect((await verifyPeriod(warehouse, '2024-03')).ok).toBe(true);
      expect((await verifyPeriod(warehouse, '2024-04')).ok).toBe(true);
      // Opened again: nothing is re-chained (a later row without a hash stays visible to verify).
      await warehouse.run(
        `INSERT INTO recon_decisions (finding_id, period, decision, decided_by, decided_at, source) VALUES ('c', ` +
          `'2024-03', 'accepted', 'x', now(), 'cli')`,
      );
    } finally {
      warehouse.close();
    }
    const reopened = await Warehouse.open(file, { timezone: 'America/Sao_Paulo' });
    try {
      expect(await reopened.one(`SELECT row_sha256 FROM recon_decisions WHERE finding_id = 'c'`)).toEqual({
        row_sha256: null,
      });
      expect((await verifyPeriod(reopened, '2024-03')).ok).toBe(false);
    } finally {
      reopened.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test(
  "verify checks each sign-off's rows as signed, " + 'even after the table gained columns, and names one that changed',
  async () => {
    const { costBreak } = await fillFindings(f);
    const quiet = capturingOutput().output;
    await reconcile(f.warehouse, f.config, { period, asOf }, quiet);
    const costId = await findingIdOf(f, costBreak.partner_reference);
    await decideFindings(f.warehouse, [costId], { decision: 'claim', by: 'ana' });
    const signoff = await closePeriod(f.warehouse, f.config, { period, by: 'Ana Lima', allowUndecided: true }, quiet);
    expect(signoff.manifest.decisionChainHead).toMatchObject({ position: 1 });
    expect(await verifyPeriod(f.warehouse, period)).toMatchObject({
      ok: true,
      signoffs: [{ signoffId: signoff.signoffId, reopened: false }],
    });

    // A later version adds a column to the findings (and so to the signed rows): the sign-off still verifies.
    await f.warehouse.run('ALTER TABLE recon_exceptions_signed ADD COLUMN some_later_column VARCHAR');
    expect((await verifyPeriod(f.warehouse, period)).ok).toBe(true);

    // A signed row rewritten: the sign-off is named.
    await f.warehouse.run(`UPDATE recon_exceptions_signed SET difference = difference + 1 WHERE finding_id = $1`, [
      costId,
    ]);
    const broken = await verifyPeriod(f.warehouse, period);
    expect(broken.mismatches).toEqual([
      {
        kind: 'signoff',
        subject: `sign-off ${signoff.signoffId} (by Ana Lima)`,
        reason:
          'its signed rows (recon_exceptions_signed) no longer hash to its content_sha256 ' +
          `${signoff.contentSha256}`,
      },
    ]);
  },
);
