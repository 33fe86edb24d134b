/**
 * The month's routine by people with keys (issue 28), the CLI on a month reconciled against the simulator (the built
 * CLI spawned once per command, for its wiring; the refusals in this process, issue 27):
 * a decision refused without a key, then decided, planned, approved and signed off, each by its person's key
 * (PINRECON_IDENTITY) with the role the act needs; the approver not listed is refused above the limit; every
 * row is signed and its signature verifies with the person's public key over the documented canonical bytes.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, expect, test } from 'vitest';
import {
  canonicalActionEvent,
  chainedActionEventColumns,
  toChainedActionEvent,
} from '../../core/action-event-chain.js';
import {
  canonicalDecision,
  chainedDecisionColumns,
  toChainedDecision,
  type StoredDecisionRow,
} from '../../core/decision-chain.js';
import { createKeyPair, verifyCanonical } from '../../core/signatures.js';
import { signoffCanonical } from '../../pipelines/close/attest.js';
import { findingsOfType, period, reconciledMonth, type ActionsMonth } from '../support/actions.js';
import { runCli } from '../support/cli.js';
import { runCommand } from '../support/cli-in-process.js';

let month: ActionsMonth | undefined;
afterEach(async () => {
  await month?.close();
  month = undefined;
});

test('decide, plan, approve and close, each by its key and role; every row signed and verifying', async () => {
  const keys = mkdtempSync(path.join(tmpdir(), 'pinrecon-keys-'));
  const person = (name: string, file: string, roles: string[]) => {
    const pair = createKeyPair();
    writeFileSync(path.join(keys, file), pair.privatePem, { mode: 0o600 });
    return { name, file: path.join(keys, file), roles, ...pair };
  };
  const ana = person('Ana Lima', 'ana.pem', ['preparer']);
  const bruno = person('Bruno Costa', 'bruno.pem', ['approver', 'signer']);
  const carla = person('Carla Dias', 'carla.pem', ['approver']);
  const people = [ana, bruno, carla].map((p) => ({ name: p.name, publicKey: p.publicPem, roles: p.roles }));
  // Every claim is above a limit of one cent: only Carla, the listed approver, may approve.
  const actions = { approvalLimit: { BRL: 0.01, USD: 0.01 }, approvers: ['Carla Dias'] };
  month = await reconciledMonth({}, { people, actions });
  const m = month;
  const envOf = (who: { file: string } | null) => ({
    PINRECON_API_IDENTIFIER: 'demo-partner',
    PINRECON_API_SECRET: 'demo-secret',
    PINRECON_IDENTITY: who?.file,
    PINRECON_IDENTITY_PASSPHRASE: undefined,
  });
  /** Spawned: one case per command. */
  const as = (who: { file: string } | null, ...args: string[]) =>
    runCli([...args, '--config', m.configFile], { env: envOf(who) });
  /** The same command in this process (test/support/cli-in-process.ts). */
  const inProcessAs = (who: { file: string } | null, ...args: string[]) =>
    runCommand([...args, '--config', m.configFile], { env: envOf(who) });
  const cost = (await findingsOfType(m, 'cost_mismatch'))[0]!;
  const decide = ['findings', 'decide', cost.finding_id, '--decision', 'claim', '--note', 'charged above the list'];

  const typed = await inProcessAs(null, ...decide, '--by', 'Ana Lima');
  expect(typed.code).toBe(2);
  expect(typed.stderr).toContain('needs --identity FILE');
  const decided = await as(ana, ...decide);
  expect(decided.code, decided.stderr).toBe(0);
  expect(decided.stdout).toContain('by Ana Lima');
  expect((await as(ana, 'actions', 'plan', '--period', period)).code).toBe(0);

  const byAna = await inProcessAs(ana, 'actions', 'approve', '--period', period, '--all');
  expect(byAna.code).toBe(1);
  expect(byAna.stderr).toContain('Ana Lima may not approve actions: it needs the approver role');
  const byBruno = await inProcessAs(bruno, 'actions', 'approve', '--period', period, '--all');
  expect(byBruno.code).toBe(1);
  expect(byBruno.stderr).toMatch(/above actions\.approvalLimit\.(BRL|USD) \(0\.01\): only Carla Dias may approve it/);
  const byCarla = await as(carla, 'actions', 'approve', '--period', period, '--all');
  expect(byCarla.code, byCarla.stderr).toBe(0);
  expect(byCarla.stdout).toMatch(
    /Carla Dias approved 1 action\(s\) of 2024-03\n {2}under approval policy [0-9a-f]{64}/,
  );

  const closedByCarla = await inProcessAs(carla, 'close', '--period', period, '--allow-undecided');
  expect(closedByCarla.code).toBe(1);
  expect(closedByCarla.stderr).toContain('Carla Dias may not close: it needs the signer role');
  const closed = await as(bruno, 'close', '--period', period, '--allow-undecided', '--allow-open');
  expect(closed.code, closed.stderr).toBe(0);
  expect(closed.stdout + closed.stderr).toContain(
    `signed with the key of Bruno Costa (fingerprint ${bruno.fingerprint})`,
  );

  await m.withDatabase(async (w) => {
    const publicKey = new Map([ana, bruno, carla].map((p) => [p.fingerprint, p.publicPem]));
    const decision = (await w.one<StoredDecisionRow & { signature: string; signer_key_sha256: string }>(
      `SELECT ${chainedDecisionColumns}, signature, signer_key_sha256 FROM recon_decisions WHERE finding_id = $1`,
      [cost.finding_id],
    ))!;
    expect(decision.signer_key_sha256).toBe(ana.fingerprint);
    const decisionBytes = canonicalDecision(toChainedDecision(decision));
    expect(verifyCanonical(ana.publicPem, decisionBytes, decision.signature)).toBe(true);
    const events = await w.all(`SELECT ${chainedActionEventColumns} FROM recon_action_events ORDER BY chain_position`);
    expect(events.map((e) => [e.by, e.to_status])).toEqual([
      ['Ana Lima', 'proposed'],
      ['Carla Dias', 'approved'],
    ]);
    for (const e of events) {
      const key = publicKey.get(e.signer_key_sha256 as string)!;
      expect(verifyCanonical(key, canonicalActionEvent(toChainedActionEvent(e as never)), e.signature as string)).toBe(
        true,
      );
    }
    const signoff = (await w.one<{ signoff_id: string; signature: string; signer_key_sha256: string }>(
      'SELECT signoff_id, signature, signer_key_sha256 FROM period_signoffs',
    ))!;
    expect(signoff.signer_key_sha256).toBe(bruno.fingerprint);
    const signoffBytes = await signoffCanonical(w, signoff.signoff_id);
    expect(verifyCanonical(bruno.publicPem, signoffBytes, signoff.signature)).toBe(true);
  });
});
