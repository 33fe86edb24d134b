/**
 * Controls that hold (issue 28, issue 34 item 4) on a real DuckDB file with real Ed25519 keys: the actor proven by
 * a registered key (an unregistered key, a `--by` naming another person: usage errors), roles, maker-checker under
 * any spelling of a name, approval limits that fail closed and treat `brl` as `BRL`, the policy each approval
 * records, the decision gates, and signatures that verify over the documented canonical forms.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, test } from 'vitest';
import { configSchema, type Config } from '../../../config/schema.js';
import {
  chainedActionEventColumns,
  canonicalActionEvent,
  toChainedActionEvent,
} from '../../../core/action-event-chain.js';
import {
  canonicalDecision,
  chainedDecisionColumns,
  toChainedDecision,
  type StoredDecisionRow,
} from '../../../core/decision-chain.js';
import { JobError, UsageError } from '../../../core/errors.js';
import { createKeyPair, verifyCanonical } from '../../../core/signatures.js';
import { approveActions } from '../../../pipelines/actions/approve.js';
import { planActions } from '../../../pipelines/actions/plan.js';
import { verifyPeriod } from '../../../pipelines/close/verify.js';
import { decideFindings } from '../../../pipelines/decisions/findings.js';
import { resolveActor } from '../../../pipelines/people/actor.js';
import { approvalPolicy, policiesUsed } from '../../../pipelines/people/policy.js';
import { asOf, fixtureForEachTest, period } from '../../support/reconcile.js';
import { refundAndCostBreak } from '../../support/refunds.js';

const f = fixtureForEachTest();

/** Two findings of the period: a refunded sale still live (reversible) and a cost break of 1.00 BRL. */
const twoFindings = () => refundAndCostBreak(f);

/** A key pair written to a file, as `identity create` leaves it. */
function keyFile(name: string): { file: string; publicPem: string; fingerprint: string } {
  const keys = createKeyPair();
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'pinrecon-key-')), `${name}.pem`);
  writeFileSync(file, keys.privatePem, { mode: 0o600 });
  return { file, publicPem: keys.publicPem, fingerprint: keys.fingerprint };
}

function withPeople(base: Config, people: unknown[], actions: unknown = base.actions): Config {
  return configSchema.parse({ ...base, people, actions });
}

test(
  'unattested: a decider may not approve under another ' + 'spelling of their name (two spaces, case, full width)',
  async () => {
    const { costId } = await twoFindings();
    await decideFindings(f.warehouse, [costId], { decision: 'claim', by: 'Ana Lima' });
    await planActions(f.warehouse, f.config, { period, by: 'Rui' });
    for (const spelling of ['Ana  Lima', 'ana lima', ' ANA\u00a0LIMA ', 'Ａｎａ Lima']) {
      await expect(approveActions(f.warehouse, f.config, { period, all: true, by: spelling })).rejects.toThrow(
        /decided its finding \(claim\); another person must approve it/,
      );
    }
    // The planner neither, whatever the spelling.
    await expect(approveActions(f.warehouse, f.config, { period, all: true, by: 'RUI ' })).rejects.toThrow(
      /planned it; another person must approve it/,
    );
    const approved = await approveActions(f.warehouse, f.config, { period, all: true, by: 'Bruno' });
    expect(approved.approved).toHaveLength(1);
  },
);

test(
  'limits: above the limit, and in a currency with no ' + 'limit, only actions.approvers approve; brl is BRL',
  async () => {
    const { costId, refundedId } = await twoFindings();
    await decideFindings(f.warehouse, [costId], { decision: 'claim', by: 'Ana' });
    await decideFindings(f.warehouse, [refundedId], { decision: 'reverse', by: 'Ana' });
    await planActions(f.warehouse, f.config, { period, by: 'Ana' });
    // The provider spelled the currency in lower case (issue 34 item 4): the BRL limit still holds.
    await f.warehouse.run(`UPDATE recon_actions SET currency_code = 'brl'`);
    const limited = configSchema.parse({ ...f.config, actions: { approvalLimit: { BRL: 5 }, approvers: ['Chief'] } });
    await expect(approveActions(f.warehouse, limited, { period, all: true, by: 'Bruno' })).rejects.toThrow(
      /8\.0000 BRL is above actions\.approvalLimit\.BRL \(5\): only Chief may approve it/,
    );
    // A currency with no configured limit fails closed.
    const otherCurrency = configSchema.parse({
      ...f.config,
      actions: { approvalLimit: { USD: 5 }, approvers: ['Chief'] },
    });
    await expect(approveActions(f.warehouse, otherCurrency, { period, all: true, by: 'Bruno' })).rejects.toThrow(
      /no actions\.approvalLimit\.BRL is configured, so only actions\.approvers may approve it \(fail closed\): Chief/,
    );
    // The listed approver, under another spelling, approves both; each approval records the policy in force.
    const done = await approveActions(f.warehouse, limited, { period, all: true, by: 'chief' });
    expect(done.approved).toHaveLength(2);
    const policy = approvalPolicy(limited);
    expect(done.policySha256).toBe(policy.sha256);
    const events = await f.warehouse.all<{ policy_sha256: string | null }>(
      `SELECT policy_sha256 FROM recon_action_events WHERE to_status = 'approved'`,
    );
    expect(events.map((e) => e.policy_sha256)).toEqual([policy.sha256, policy.sha256]);
    const stored = await f.warehouse.one<{ policy: string }>('SELECT policy FROM approval_policies');
    expect(JSON.parse(stored!.policy)).toMatchObject({ approvalLimit: { BRL: 5 }, approvers: ['chief'] });
    // What verify and the audit pack list: the policies the period's approvals were made under.
    expect(await policiesUsed(f.warehouse, period)).toEqual([
      { policySha256: policy.sha256, policy: policy.json, approvals: 2 },
    ]);
    expect((await verifyPeriod(f.warehouse, period)).policies).toEqual(await policiesUsed(f.warehouse, period));
  },
);

test('gates: write_off and accepted need a note; timing needs a clear-by date not in the past', async () => {
  const { costId } = await twoFindings();
  const today = '2024-04-10';
  const refused = async (options: Record<string, string>) =>
    (await decideFindings(f.warehouse, [costId], { today, by: 'Ana', ...options } as never)).refused[0]?.reason;
  expect(await refused({ decision: 'write_off' })).toMatch(/write_off needs a Note/);
  expect(await refused({ decision: 'accepted', note: '   ' })).toMatch(/accepted needs a Note/);
  expect(await refused({ decision: 'timing', expectedClearBy: '2024-04-09' })).toMatch(
    /timing needs an Expected clear by that is not in the past \(2024-04-09 is before today, 2024-04-10\)/,
  );
  expect(await f.warehouse.one<{ n: string }>('SELECT count(*)::VARCHAR AS n FROM recon_decisions')).toEqual({
    n: '0',
  });
  expect(await refused({ decision: 'timing', expectedClearBy: today })).toBeUndefined();
  expect(await refused({ decision: 'write_off', note: 'one real too small to chase' })).toBeUndefined();
});

test(
  'people: the key proves the actor; an unregistered key, ' + 'a --by of another person or a missing role refuse',
  async () => {
    const ana = keyFile('ana');
    const bruno = keyFile('bruno');
    const stranger = keyFile('stranger');
    const config = withPeople(f.config, [
      { name: 'Ana Lima', publicKey: ana.publicPem, roles: ['preparer'] },
      { name: 'Bruno Costa', publicKey: bruno.publicPem, roles: ['approver', 'signer'] },
    ]);
    const env = {};
    expect(() => resolveActor(config, { env }, 'preparer', 'decide findings')).toThrow(UsageError);
    expect(() => resolveActor(config, { identity: stranger.file, env }, 'preparer', 'decide')).toThrow(
      new RegExp(`fingerprint ${stranger.fingerprint}\\) is not registered`),
    );
    expect(() => resolveActor(config, { identity: ana.file, by: 'Bruno Costa', env }, 'preparer', 'decide')).toThrow(
      /--by "Bruno Costa" is not the person of .*\("Ana Lima"\)/,
    );
    expect(() => resolveActor(config, { identity: ana.file, by: 'Bruno Costa', env }, 'preparer', 'decide')).toThrow(
      UsageError,
    );
    expect(() => resolveActor(config, { identity: ana.file, env }, 'approver', 'approve actions')).toThrow(JobError);
    expect(() => resolveActor(config, { identity: ana.file, env }, 'approver', 'approve actions')).toThrow(
      /Ana Lima may not approve actions: it needs the approver role/,
    );
    // From the environment, and --by naming the same person in another spelling.
    const actor = resolveActor(config, { by: 'ana  lima', env: { PINRECON_IDENTITY: ana.file } }, 'preparer', 'x');
    expect(actor).toMatchObject({ name: 'Ana Lima', attested: true, roles: ['preparer'] });
    expect(actor.signer?.fingerprint).toBe(ana.fingerprint);
  },
);

test(
  'people: an encrypted key is read with PINRECON_IDENTITY_PASSPHRASE; ' + 'without it, or with a wrong one, exit 2',
  () => {
    const keys = createKeyPair('correct horse');
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'pinrecon-key-')), 'ana.pem');
    writeFileSync(file, keys.privatePem, { mode: 0o600 });
    const config = withPeople(f.config, [{ name: 'Ana Lima', publicKey: keys.publicPem, roles: ['preparer'] }]);
    const resolve = (env: NodeJS.ProcessEnv) => resolveActor(config, { identity: file, env }, 'preparer', 'decide');
    expect(resolve({ PINRECON_IDENTITY_PASSPHRASE: 'correct horse' }).signer?.fingerprint).toBe(keys.fingerprint);
    expect(() => resolve({})).toThrow(/is encrypted: set PINRECON_IDENTITY_PASSPHRASE/);
    expect(() => resolve({ PINRECON_IDENTITY_PASSPHRASE: 'wrong' })).toThrow(UsageError);
  },
);

test(
  'people: decisions, plans and approvals are signed over their ' +
    'canonical bytes; an approver not listed is refused above the limit',
  async () => {
    const { costId } = await twoFindings();
    const ana = keyFile('ana');
    const bruno = keyFile('bruno');
    const carla = keyFile('carla');
    const people = [
      { name: 'Ana Lima', publicKey: ana.publicPem, roles: ['preparer'] },
      { name: 'Bruno Costa', publicKey: bruno.publicPem, roles: ['approver'] },
      { name: 'Carla Dias', publicKey: carla.publicPem, roles: ['approver'] },
    ];
    const config = withPeople(f.config, people, { approvalLimit: { BRL: 0.5 }, approvers: ['Carla Dias'] });
    const as = (file: string, role: 'preparer' | 'approver') =>
      resolveActor(config, { identity: file, env: {} }, role, 'act');
    await decideFindings(f.warehouse, [costId], { decision: 'claim', actor: as(ana.file, 'preparer'), today: asOf });
    await planActions(f.warehouse, config, { period, actor: as(ana.file, 'preparer') });
    // Bruno holds the approver role but is not in actions.approvers: 1.00 BRL is above the 0.50 limit.
    await expect(
      approveActions(f.warehouse, config, { period, all: true, actor: as(bruno.file, 'approver') }),
    ).rejects.toThrow(/1\.0000 BRL is above actions\.approvalLimit\.BRL \(0\.5\): only Carla Dias may approve it/);
    await approveActions(f.warehouse, config, { period, all: true, actor: as(carla.file, 'approver') });

    const decision = (await f.warehouse.one<StoredDecisionRow & { signature: string; signer_key_sha256: string }>(
      `SELECT ${chainedDecisionColumns}, signature, signer_key_sha256 FROM recon_decisions`,
    ))!;
    expect(decision.decided_by).toBe('Ana Lima');
    expect(decision.signer_key_sha256).toBe(ana.fingerprint);
    expect(verifyCanonical(ana.publicPem, canonicalDecision(toChainedDecision(decision)), decision.signature)).toBe(
      true,
    );
    const events = await f.warehouse.all(
      `SELECT ${chainedActionEventColumns} FROM recon_action_events ORDER BY chain_position`,
    );
    expect(events.map((e) => [e.by, e.to_status, e.signer_key_sha256])).toEqual([
      ['Ana Lima', 'proposed', ana.fingerprint],
      ['Carla Dias', 'approved', carla.fingerprint],
    ]);
    const keyOf = { [ana.fingerprint]: ana.publicPem, [carla.fingerprint]: carla.publicPem };
    for (const e of events) {
      const canonical = canonicalActionEvent(toChainedActionEvent(e as never));
      expect(verifyCanonical(keyOf[e.signer_key_sha256 as string]!, canonical, e.signature as string)).toBe(true);
    }
  },
);
