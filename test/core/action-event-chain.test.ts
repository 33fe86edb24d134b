/**
 * The action events' hash chain (issue 28) on a real DuckDB file: every appended event links on its period's
 * head and hashes to its documented canonical form; a signed event verifies with the signer's public key; a
 * database from before the chain is chained once when opened, in the order its events were recorded.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, test } from 'vitest';
import {
  actionEventSha256,
  canonicalActionEvent,
  chainedActionEventColumns,
  toChainedActionEvent,
  type StoredActionEventRow,
} from '../../core/action-event-chain.js';
import { createKeyPair, identityFromPrivatePem, verifyCanonical } from '../../core/signatures.js';
import { Warehouse } from '../../core/warehouse.js';
import { appendEvent } from '../../pipelines/actions/store.js';

async function insertAction(warehouse: Warehouse, actionId: string, period: string): Promise<void> {
  await warehouse.run(
    `INSERT INTO recon_actions (action_id, period, finding_id, kind, status, proposed_by, proposed_at)
     VALUES ($1, $2, 'f1', 'claim', 'proposed', 'Ana', now())`,
    [actionId, period],
  );
}

async function events(warehouse: Warehouse): Promise<StoredActionEventRow[]> {
  return warehouse.all<StoredActionEventRow>(
    `SELECT ${chainedActionEventColumns} FROM recon_action_events ORDER BY period, chain_position`,
  );
}

test('events chain per period; the hash and the signature are over the documented canonical bytes', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'pinrecon-chain-'));
  const warehouse = await Warehouse.open(path.join(dir, 'p.duckdb'));
  try {
    await insertAction(warehouse, 'A-2026-01-0001', '2026-01');
    await insertAction(warehouse, 'A-2026-02-0001', '2026-02');
    const keys = createKeyPair();
    const identity = identityFromPrivatePem(keys.privatePem);
    await appendEvent(warehouse, { actionId: 'A-2026-01-0001', by: 'Ana', from: null, to: 'proposed', detail: 'x' });
    await appendEvent(warehouse, { actionId: 'A-2026-02-0001', by: 'Ana', from: null, to: 'proposed', detail: null });
    await appendEvent(warehouse, {
      actionId: 'A-2026-01-0001',
      by: 'Bruno',
      from: 'proposed',
      to: 'approved',
      detail: null,
      signer: identity,
      policySha256: 'ab'.repeat(32),
    });
    const rows = await events(warehouse);
    expect(rows.map((r) => [r.period, r.chain_position])).toEqual([
      ['2026-01', '1'],
      ['2026-01', '2'],
      ['2026-02', '1'],
    ]);
    expect(rows[0]!.prev_sha256).toBeNull();
    expect(rows[1]!.prev_sha256).toBe(rows[0]!.row_sha256);
    for (const row of rows) expect(actionEventSha256(toChainedActionEvent(row))).toBe(row.row_sha256);
    // The canonical form as docs/DATA.md writes it, by hand.
    const approval = rows[1]!;
    const written = JSON.stringify([
      'pinrecon.action_event.v1',
      '2026-01',
      2,
      'A-2026-01-0001',
      approval.at,
      'Bruno',
      'proposed',
      'approved',
      null,
      'ab'.repeat(32),
      rows[0]!.row_sha256,
    ]);
    expect(canonicalActionEvent(toChainedActionEvent(approval))).toBe(written);
    expect(approval.at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    expect(approval.signer_key_sha256).toBe(keys.fingerprint);
    expect(verifyCanonical(keys.publicPem, written, approval.signature!)).toBe(true);
    expect(verifyCanonical(keys.publicPem, written.replace('Bruno', 'Ana'), approval.signature!)).toBe(false);
    expect(rows[0]!.signature).toBeNull();
  } finally {
    warehouse.close();
  }
});

test(
  'a database from before the chain is chained once when opened, ' + 'in the order its events were recorded',
  async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'pinrecon-chain-'));
    const file = path.join(dir, 'old.duckdb');
    let warehouse = await Warehouse.open(file);
    await insertAction(warehouse, 'A-2026-01-0001', '2026-01');
    // What a database from before the chain holds: events without period or hashes.
    await warehouse.run(
      `ALTER TABLE recon_action_events DROP COLUMN period; ALTER TABLE recon_action_events DROP COLUMN chain_position;
     ALTER TABLE recon_action_events DROP COLUMN prev_sha256; ALTER TABLE recon_action_events DROP COLUMN row_sha256;
     ALTER TABLE recon_action_events DROP COLUMN policy_sha256;
     INSERT INTO recon_action_events (action_id, "at", "by", from_status, to_status, detail) VALUES
       ('A-2026-01-0001', '2026-02-02T10:00:00Z', 'Bruno', 'proposed', 'approved', NULL),
       ('A-2026-01-0001', '2026-02-01T10:00:00Z', 'Ana', NULL, 'proposed', 'claim');`,
    );
    warehouse.close();
    warehouse = await Warehouse.open(file);
    try {
      const rows = await events(warehouse);
      expect(rows.map((r) => [r.by, r.chain_position])).toEqual([
        ['Ana', '1'],
        ['Bruno', '2'],
      ]);
      expect(rows[1]!.prev_sha256).toBe(rows[0]!.row_sha256);
      for (const row of rows) expect(actionEventSha256(toChainedActionEvent(row))).toBe(row.row_sha256);
    } finally {
      warehouse.close();
    }
  },
);
