/**
 * An audit pack of a signed period whose findings the materiality rule accepted (issues 30 and 34): the rule's
 * acceptances carry no key, so the pack's verify.mjs, which has no config, holds each to the thresholds sealed in
 * manifest.json — the pack verifies as made, and a rule row typed for a material finding fails it.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { configSchema } from '../../../config/schema.js';
import { createKeyPair } from '../../../core/signatures.js';
import { writeAuditPack } from '../../../pipelines/close/audit-pack.js';
import { closePeriod } from '../../../pipelines/close/close.js';
import { registeredKeys } from '../../../pipelines/close/known-keys.js';
import { verifyPeriod } from '../../../pipelines/close/verify.js';
import { applyMateriality } from '../../../pipelines/decisions/materiality.js';
import { decideFindings } from '../../../pipelines/decisions/findings.js';
import { resolveActor } from '../../../pipelines/people/actor.js';
import { reconcile } from '../../../pipelines/reconcile/reconcile.js';
import { runVerifyMjs, unzipInto } from '../../support/audit-pack.js';
import {
  asOf,
  capturingOutput,
  type Fixture,
  insertLedger,
  insertSales,
  ledgerFor,
  openFixture,
  period,
  sale,
} from '../../support/reconcile.js';

let f: Fixture | undefined;
afterEach(() => f?.cleanup());

/** A month signed by Ana (preparer and signer) after the rule accepted the small difference; `forge` types one more. */
async function signedMonth(forge: boolean) {
  const keys = createKeyPair();
  const keyFile = path.join(mkdtempSync(path.join(tmpdir(), 'pinrecon-key-')), 'ana.pem');
  writeFileSync(keyFile, keys.privatePem, { mode: 0o600 });
  const people = [{ name: 'Ana Lima', publicKey: keys.publicPem, roles: ['preparer', 'signer'] }];
  f = await openFixture({ reconciliation: { materiality: { BRL: { absolute: 0.5 } } }, people });
  const config = configSchema.parse(f.config);
  const small = sale({ partner_cost_price: '8.25' });
  const large = sale({ partner_cost_price: '9.00' });
  await insertSales(f.warehouse, [small, large]);
  await insertLedger(f.warehouse, [
    ledgerFor(small, { expected_cost: '8.00' }),
    ledgerFor(large, { expected_cost: '8.00' }),
  ]);
  await reconcile(f.warehouse, config, { period, asOf }, capturingOutput().output);
  expect((await applyMateriality(f.warehouse, config, period)).accepted).toHaveLength(1);
  const largeId = (await f.warehouse.one<{ finding_id: string }>(
    'SELECT finding_id FROM recon_exceptions WHERE partner_reference = $1',
    [large.partner_reference!],
  ))!.finding_id;
  if (forge)
    await decideFindings(f.warehouse, [largeId], { decision: 'accepted', by: 'rule:materiality', note: 'small' });
  else {
    const ana = resolveActor(config, { identity: keyFile, env: {} }, 'preparer', 'decide');
    await decideFindings(f.warehouse, [largeId], { decision: 'accepted', actor: ana, note: 'agreed with provider' });
  }
  const signer = resolveActor(config, { identity: keyFile, env: {} }, 'signer', 'close');
  const close = { period, by: signer.name, signer: signer.signer, sealSigner: signer.signer };
  await closePeriod(f.warehouse, config, close, capturingOutput().output);
  const out = path.join(f.dir, 'pack.zip');
  await writeAuditPack(f.warehouse, { period, out, keys: registeredKeys(config) });
  const unzipped = path.join(f.dir, 'pack');
  await unzipInto(unzipped, out);
  return { config, unzipped, largeId };
}

test("a pack whose rule acceptances the sealed thresholds hold verifies with the pack's verify.mjs", async () => {
  const { config, unzipped } = await signedMonth(false);
  expect(JSON.parse(readFileSync(path.join(unzipped, 'manifest.json'), 'utf8')).materiality).toEqual({
    BRL: { absolute: 0.5 },
  });
  const run = runVerifyMjs(unzipped);
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  expect(run.stdout).toMatch(/^OK 2024-03: seal of sign-off .* signed with the key of Ana Lima; 2 decisions/);
  // pinrecon's verify agrees, holding the signed period to the sealed thresholds, not to today's config.
  const looser = configSchema.parse({ ...config, reconciliation: { ...config.reconciliation, materiality: {} } });
  const report = await verifyPeriod(f!.warehouse, period, {
    keys: registeredKeys(config),
    materiality: looser.reconciliation.materiality,
  });
  expect(report.mismatches).toEqual([]);
});

test('a rule acceptance typed for a material finding fails the pack, naming its row and finding', async () => {
  const { unzipped, largeId } = await signedMonth(true);
  const run = runVerifyMjs(unzipped);
  expect(run.status).toBe(1);
  expect(run.stderr).toContain('FAIL decisions.csv row 2: it is not signed and names the materiality rule');
  expect(run.stderr).toContain(`finding ${largeId}`);
});
