/**
 * Closing with controls (issue 28) on a real DuckDB file: findings still `investigating` refuse the close unless
 * --allow-open, and the sign-off then lists them; an unattested sign-off says so in plain words; a signer's key
 * signs the sign-off row and the reopen over their documented canonical forms.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, test } from 'vitest';
import { configSchema } from '../../../config/schema.js';
import { JobError } from '../../../core/errors.js';
import { createKeyPair, unattestedNotice, verifyCanonical } from '../../../core/signatures.js';
import { reopenCanonical, signoffCanonical } from '../../../pipelines/close/attest.js';
import { closePeriod, reopenPeriod } from '../../../pipelines/close/close.js';
import { loadSignoffFacts } from '../../../pipelines/close/signoffs.js';
import { describeClose } from '../../../reports/close-facts.js';
import { decideFindings } from '../../../pipelines/decisions/findings.js';
import { resolveActor } from '../../../pipelines/people/actor.js';
import { reconcile } from '../../../pipelines/reconcile/reconcile.js';
import {
  asOf,
  capturingOutput,
  fixtureForEachTest,
  insertLedger,
  insertSales,
  ledgerFor,
  period,
  sale,
} from '../../support/reconcile.js';

const f = fixtureForEachTest();

/** One cost break of the period, decided `investigating`. */
async function investigated(): Promise<string> {
  const costBreak = sale({ partner_cost_price: '9.00' });
  await insertSales(f.warehouse, [costBreak]);
  await insertLedger(f.warehouse, [ledgerFor(costBreak, { expected_cost: '8.00' })]);
  await reconcile(f.warehouse, f.config, { period, asOf }, capturingOutput().output);
  const row = await f.warehouse.one<{ finding_id: string }>('SELECT finding_id FROM recon_exceptions');
  await decideFindings(f.warehouse, [row!.finding_id], { decision: 'investigating', by: 'Ana' });
  return row!.finding_id;
}

type SignoffRow = {
  signoff_id: string;
  open_findings: string | null;
  attestation: string;
  signature: string | null;
  signer_key_sha256: string | null;
  reopen_signature: string | null;
  reopen_signer_key_sha256: string | null;
};

const signoffRow = async () =>
  (await f.warehouse.one<SignoffRow>(
    `SELECT signoff_id, open_findings, attestation, signature, signer_key_sha256, reopen_signature,
            reopen_signer_key_sha256 FROM period_signoffs`,
  ))!;

test('close refuses investigating findings unless --allow-open, then lists them; unattested, it says so', async () => {
  const findingId = await investigated();
  const refused = closePeriod(f.warehouse, f.config, { period, by: 'Ana' }, capturingOutput().output);
  await expect(refused).rejects.toThrow(JobError);
  await expect(closePeriod(f.warehouse, f.config, { period, by: 'Ana' }, capturingOutput().output)).rejects.toThrow(
    /1 finding\(s\) still investigating, so it is not signed off/,
  );
  expect(await f.warehouse.one('SELECT count(*)::VARCHAR AS n FROM period_signoffs')).toEqual({ n: '0' });

  const console = capturingOutput();
  await closePeriod(f.warehouse, f.config, { period, by: 'Ana', allowOpen: true }, console.output);
  const row = await signoffRow();
  expect(JSON.parse(row.open_findings!)).toEqual([findingId]);
  expect(row.attestation).toBe(unattestedNotice);
  expect(row.signature).toBeNull();
  expect(console.text()).toContain(unattestedNotice);
  expect(console.text()).toContain(`signed off with 1 finding(s) investigating: ${findingId}`);
  // The workbook and the email say the sign-off as describeClose does: with the findings left open, and who vouches.
  const facts = { verdict: null, incompleteReasons: [], fillCommands: [] };
  const close = { ...facts, ...(await loadSignoffFacts(f.warehouse, period, f.config.timezone)) };
  expect(describeClose(close).lines).toContain(
    `Signed with 1 finding(s) still investigating (close --allow-open): ${findingId}`,
  );
  expect(close.seal).toMatchObject({ signerKeySha256: null });
});

test("a signer's key signs the sign-off row and the reopen over their canonical forms", async () => {
  await investigated();
  const keys = createKeyPair();
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'pinrecon-key-')), 'bruno.pem');
  writeFileSync(file, keys.privatePem, { mode: 0o600 });
  const people = [{ name: 'Bruno Costa', publicKey: keys.publicPem, roles: ['signer'] }];
  const config = configSchema.parse({ ...f.config, people });
  const actor = resolveActor(config, { identity: file, env: {} }, 'signer', 'close');
  const close = { period, by: actor.name, allowOpen: true, signer: actor.signer, sealSigner: actor.signer };
  await closePeriod(f.warehouse, config, close, capturingOutput().output);
  const signed = await signoffRow();
  expect(signed.attestation).toBe(`signed with the key of Bruno Costa (fingerprint ${keys.fingerprint})`);
  expect(signed.signer_key_sha256).toBe(keys.fingerprint);
  const canonical = await signoffCanonical(f.warehouse, signed.signoff_id);
  expect(JSON.parse(canonical).slice(0, 4)).toEqual(['pinrecon.signoff.v1', signed.signoff_id, period, 'Bruno Costa']);
  expect(verifyCanonical(keys.publicPem, canonical, signed.signature!)).toBe(true);
  // The row changed afterwards no longer verifies.
  await f.warehouse.run(`UPDATE period_signoffs SET note = 'edited'`);
  expect(
    verifyCanonical(keys.publicPem, await signoffCanonical(f.warehouse, signed.signoff_id), signed.signature!),
  ).toBe(false);

  const reopen = { period, by: actor.name, reason: 'late refund', signer: actor.signer };
  await reopenPeriod(f.warehouse, config, reopen, capturingOutput().output);
  const reopened = await signoffRow();
  expect(reopened.reopen_signer_key_sha256).toBe(keys.fingerprint);
  const reopenText = await reopenCanonical(f.warehouse, reopened.signoff_id);
  expect(JSON.parse(reopenText).slice(0, 4)).toEqual([
    'pinrecon.reopen.v1',
    reopened.signoff_id,
    period,
    'Bruno Costa',
  ]);
  expect(verifyCanonical(keys.publicPem, reopenText, reopened.reopen_signature!)).toBe(true);
});
