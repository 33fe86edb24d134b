/**
 * Issue 28 items 6-8 with real keys, real files and the CLI (the built CLI spawned once per command, for its wiring;
 * the other cases in this process, issue 27): people decide, plan, approve and close with
 * their Ed25519 keys; the close seals the sign-off and the email carries the seal's sha256 and the signer's key;
 * `verify` passes, then fails on each tamper (a note edited; the chain recomputed by the documented rule after
 * the edit; the sign-off rows deleted, against a seal kept outside; the database copied with an edited ledger;
 * a period never reconciled); the audit pack, unzipped into an empty folder, passes `node verify.mjs` alone,
 * and one byte changed in any member makes it exit 1 naming that member.
 */
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { simpleParser } from 'mailparser';
import { afterAll, beforeAll, expect, test } from 'vitest';
import {
  canonicalDecision,
  chainedDecisionColumns,
  decisionSha256,
  toChainedDecision,
} from '../../core/decision-chain.js';
import { createKeyPair, sha256Hex } from '../../core/signatures.js';
import { Warehouse } from '../../core/warehouse.js';
import { unzipInto, runVerifyMjs } from '../support/audit-pack.js';
import { cliPath, type CliResult } from '../support/cli.js';
import { runCommand } from '../support/cli-in-process.js';
import { findingsOfType, period, reconciledMonth, type ActionsMonth } from '../support/actions.js';
import { approveAllStep, decideStep, executeStep, planStep, resolvedActor } from '../support/commands.js';

let month: ActionsMonth;
let ana: string;
let bruno: string;
let brunoFingerprint: string;
let pack: string;
let closeEml: string;
const scratch = mkdtempSync(path.join(tmpdir(), 'pinrecon-seal-'));

/** As month.cli, in this process (test/support/cli-in-process.ts): verify and audit-pack are spawned once each. */
const env = { PINRECON_API_IDENTIFIER: 'demo-partner', PINRECON_API_SECRET: 'demo-secret' };
const inProcess = (...args: string[]) => runCommand([...args, '--config', month.configFile], { env });

const ok = (result: CliResult) => expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0);

beforeAll(async () => {
  if (!existsSync(cliPath)) throw new Error('run `npm run build` first: the CLI test needs dist/');
  const keys = { ana: createKeyPair(), bruno: createKeyPair() };
  ana = path.join(scratch, 'ana.pem');
  bruno = path.join(scratch, 'bruno.pem');
  writeFileSync(ana, keys.ana.privatePem, { mode: 0o600 });
  writeFileSync(bruno, keys.bruno.privatePem, { mode: 0o600 });
  brunoFingerprint = keys.bruno.fingerprint;
  writeFileSync(path.join(scratch, 'both.pem'), keys.ana.publicPem + keys.bruno.publicPem);
  writeFileSync(path.join(scratch, 'ana-only.pem'), keys.ana.publicPem);
  month = await reconciledMonth(
    {},
    {
      people: [
        { name: 'Ana Lima', publicKey: keys.ana.publicPem, roles: ['preparer'] },
        { name: 'Bruno Costa', publicKey: keys.bruno.publicPem, roles: ['approver', 'signer'] },
      ],
      actions: { approvalLimit: { BRL: 1_000_000 }, approvers: ['Bruno Costa'] },
    },
  );
  const m = month;
  const claims = await findingsOfType(m, 'cost_mismatch');
  const refunded = await findingsOfType(m, 'refunded_not_reversed');
  expect(claims.length * refunded.length).toBeGreaterThan(0);
  // Decided, planned and approved with Ana's and Bruno's keys, and executed, in this process as the commands do
  // (test/support/commands.ts, issue 27; test/cli/signed-routine.test.ts spawns them with --identity).
  const asAna = resolvedActor(m.config, ana, 'preparer', 'decide findings');
  const decide = (ids: string[], decision: string, note: string) =>
    decideStep(m.config, ids, { decision, note, actor: asAna });
  await decide(
    claims.map((f) => f.finding_id),
    'claim',
    'charged above the agreed cost',
  );
  await decide(
    refunded.map((f) => f.finding_id),
    'reverse',
    'refunded to the customer',
  );
  await planStep(m.config, period, resolvedActor(m.config, ana, 'preparer', 'plan actions'));
  await approveAllStep(m.config, period, resolvedActor(m.config, bruno, 'approver', 'approve actions'));
  await executeStep(m.config, period, 'Bruno Costa');
  const closed = await m.cli(
    'close',
    ...['--period', period, '--identity', bruno, '--allow-undecided', '--allow-open', '--email', '--dry-run', '--json'],
  );
  ok(closed);
  closeEml = (JSON.parse(closed.stdout) as { report: { email: { eml: string } } }).report.email.eml;
  pack = path.join(scratch, 'pack.zip');
  ok(await m.cli('audit-pack', '--period', period, '--out', pack));
}, 240_000);

afterAll(async () => {
  await month?.close();
  rmSync(scratch, { recursive: true, force: true });
});

/** The month's folder copied (database, landing files, ledger) with a config naming the copy; its CLI in-process. */
function copyMonth(name: string): { dir: string; database: string; cli: (...args: string[]) => Promise<CliResult> } {
  const dir = path.join(scratch, name);
  cpSync(month.dir, dir, { recursive: true });
  const configFile = path.join(dir, 'pinrecon.config.json');
  writeFileSync(configFile, readFileSync(configFile, 'utf8').replaceAll(month.dir, dir));
  return {
    dir,
    database: path.join(dir, 'pinrecon.duckdb'),
    cli: (...args) => runCommand([...args, '--config', configFile]),
  };
}

async function onDatabase<T>(file: string, work: (w: Warehouse) => Promise<T>): Promise<T> {
  const warehouse = await Warehouse.open(file, { timezone: month.config.timezone });
  try {
    return await work(warehouse);
  } finally {
    warehouse.close();
  }
}

test(
  'verify passes on the signed month, printing every ' + 'file it read and the seal; the email carries the seal',
  async () => {
    const verified = await month.cli('verify', '--period', period);
    ok(verified);
    expect(verified.stdout).toMatch(/signed row\(s\) checked/);
    expect(verified.stdout).toMatch(/read ledger\.csv: ok/);
    expect(verified.stdout).toMatch(/read landing\/\S+: ok/);
    const seal = await month.withDatabase((w) =>
      w.one<{ seal: string; seal_signature: string | null; signer_key_sha256: string }>(
        'SELECT seal, seal_signature, signer_key_sha256 FROM period_signoffs WHERE period = $1',
        [period],
      ),
    );
    expect(seal!.seal_signature).toMatch(/^[A-Za-z0-9+/]+=*$/);
    expect(seal!.signer_key_sha256).toBe(brunoFingerprint);
    const sealHash = sha256Hex(Buffer.from(seal!.seal, 'utf8'));
    expect(verified.stdout).toContain(sealHash);

    const report = await month.cli('report', '--period', period, '--email', '--dry-run', '--json');
    ok(report);
    const mail = await simpleParser(readFileSync((JSON.parse(report.stdout) as { email: { eml: string } }).email.eml));
    expect(mail.text).toContain(`Seal sha256: ${sealHash}`);
    expect(mail.text).toContain(brunoFingerprint);
    // The email close --email sends says the same.
    const closeMail = await simpleParser(readFileSync(closeEml));
    expect(closeMail.text).toContain(`Seal sha256: ${sealHash}`);
    expect(closeMail.subject).toMatch(/signed off by Bruno Costa/);

    // An auditor's own copy of the keys (--public-keys) checks the same; without the signer's key, the seal fails.
    ok(await inProcess('verify', '--period', period, '--public-keys', path.join(scratch, 'both.pem')));
    const anaOnly = await inProcess('verify', '--period', period, '--public-keys', path.join(scratch, 'ana-only.pem'));
    expect(anaOnly.code).toBe(1);
    expect(anaOnly.stderr).toMatch(/signed by a key that is not registered \(fingerprint [0-9a-f]{64}\)/);

    // A period never reconciled has nothing to verify.
    const never = await inProcess('verify', '--period', '2023-01');
    expect(never.code).toBe(1);
    expect(never.stderr).toMatch(/Nothing to verify for 2023-01/);
  },
);

test(
  'a note edited in the database, then the chain recomputed ' + 'by the documented rule: verify fails on the signature',
  async () => {
    const copy = copyMonth('edited-note');
    await onDatabase(copy.database, (w) =>
      w.run(`UPDATE recon_decisions SET note = 'not charged above cost' WHERE period = $1 AND chain_position = 1`, [
        period,
      ]),
    );
    const edited = await copy.cli('verify', '--period', period);
    expect(edited.code).toBe(1);
    expect(edited.stderr).toMatch(/recon_decisions row 1 of 2024-03: .*does not hash to its row_sha256/);

    // The insider recomputes every hash from the documented canonical form (docs/DATA.md): the chain holds again,
    // but the row's signature is over the old bytes, and the seal states the old head.
    await onDatabase(copy.database, async (w) => {
      const rows = await w.all<Parameters<typeof toChainedDecision>[0]>(
        `SELECT ${chainedDecisionColumns} FROM recon_decisions
       WHERE period = $1 ORDER BY chain_position`,
        [period],
      );
      let previous: string | null = null;
      for (const row of rows) {
        const chained = { ...toChainedDecision(row), prevSha256: previous };
        const sha = decisionSha256(chained);
        expect(canonicalDecision(chained)).toContain('pinrecon.decision.v1');
        await w.run(
          'UPDATE recon_decisions SET prev_sha256 = $1, row_sha256 = $2 WHERE period = $3 AND chain_position = $4',
          [previous, sha, period, chained.chainPosition],
        );
        previous = sha;
      }
    });
    const recomputed = await copy.cli('verify', '--period', period, '--json');
    expect(recomputed.code).toBe(1);
    const report = JSON.parse(recomputed.stdout) as { mismatches: { subject: string; reason: string }[] };
    expect(report.mismatches[0]!.subject).toMatch(/recon_decisions row 1 of 2024-03/);
    expect(report.mismatches[0]!.reason).toMatch(/signature .* does not match its content/);
    expect(report.mismatches.map((m) => m.reason).join('\n')).toMatch(
      /decision chain head .* is no longer in the chain/,
    );

    // Removing the signature instead does not help: with people configured every decision must be signed.
    await onDatabase(copy.database, (w) =>
      w.run(`UPDATE recon_decisions SET signature = NULL, signer_key_sha256 = NULL WHERE chain_position = 1`),
    );
    const unsigned = await copy.cli('verify', '--period', period);
    expect(unsigned.code).toBe(1);
    expect(unsigned.stderr).toMatch(/recon_decisions row 1 of 2024-03: .*it is not signed/);
  },
);

test(
  'the sign-off rows deleted: verify --seal with the seal ' + 'kept outside fails; on the intact database it passes',
  async () => {
    const kept = path.join(scratch, 'seal-kept.json');
    const seal = await month.withDatabase((w) => w.one<{ seal: string }>('SELECT seal FROM period_signoffs'));
    writeFileSync(kept, seal!.seal);
    ok(await inProcess('verify', '--period', period, '--seal', kept));

    const copy = copyMonth('deleted-signoff');
    await onDatabase(copy.database, async (w) => {
      await w.run('DELETE FROM recon_exceptions_signed');
      await w.run('DELETE FROM period_signoffs');
    });
    const deleted = await copy.cli('verify', '--period', period, '--seal', kept);
    expect(deleted.code).toBe(1);
    expect(deleted.stderr).toMatch(
      /the seal in .*seal-kept\.json: sign-off \S+ \(by Bruno Costa\) it seals is no longer/,
    );

    // A sign-off row rewritten (another content hash) with its seal left: the seal no longer states the row.
    const rewritten = copyMonth('rewritten-signoff');
    await onDatabase(rewritten.database, (w) => w.run(`UPDATE period_signoffs SET content_sha256 = repeat('0', 64)`));
    const result = await rewritten.cli('verify', '--period', period, '--seal', kept);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/seal of sign-off .* states content_sha256/);
  },
);

test('the database copied elsewhere with an edited ledger: verify reads the copy and names its ledger', async () => {
  const copy = copyMonth('copied');
  const ledger = path.join(copy.dir, 'ledger.csv');
  writeFileSync(ledger, `${readFileSync(ledger, 'utf8')}\n`);
  const result = await copy.cli('verify', '--period', period);
  expect(result.code).toBe(1);
  expect(result.stderr).toContain(`${ledger}: its sha256 is`);
  expect(result.stderr).toMatch(/read ledger\.csv: changed/);
  expect(result.stderr).toMatch(/read landing\/\S+: ok/);
  // The original, untouched, still verifies: the copy's files were read, not the original's paths.
  ok(await inProcess('verify', '--period', period));
  rmSync(path.join(copy.dir, 'ledger.csv'));
  const missing = await copy.cli('verify', '--period', period);
  expect(missing.stderr).toMatch(/read ledger\.csv: missing/);
});

test(
  'the audit pack unzipped into an empty folder passes node ' + 'verify.mjs; one byte changed in any member fails it',
  async () => {
    const clean = path.join(scratch, 'unzipped');
    await unzipInto(clean, pack);
    const members = [
      'seal.json',
      'seal.sig',
      'public-keys.pem',
      'decisions.csv',
      'actions.csv',
      'action-events.csv',
      'findings.csv',
      'approval-policies.json',
      'manifest.json',
      'README.txt',
      'verify.mjs',
    ];
    expect(readdirSync(clean).sort()).toEqual([...members].sort());
    const passed = runVerifyMjs(clean);
    expect(passed.status, `${passed.stdout}\n${passed.stderr}`).toBe(0);
    expect(passed.stdout).toContain(`Bruno Costa: ${brunoFingerprint}`);
    expect(readFileSync(path.join(clean, 'README.txt'), 'utf8')).toContain(brunoFingerprint);
    // Issue 34 item 4: the policy Bruno's approvals recorded, its text hashing to the sha256 each approval signed.
    const recorded = await month.withDatabase((w) =>
      w.all<{ policy_sha256: string; approvals: string }>(
        `SELECT policy_sha256, count(*)::VARCHAR AS approvals FROM recon_action_events
       WHERE to_status = 'approved' GROUP BY 1`,
      ),
    );
    expect(recorded).toHaveLength(1);
    const policies = JSON.parse(readFileSync(path.join(clean, 'approval-policies.json'), 'utf8'));
    expect(policies).toEqual([
      {
        policy_sha256: recorded[0]!.policy_sha256,
        approvals: Number(recorded[0]!.approvals),
        policy: expect.anything(),
      },
    ]);
    expect(policies[0].policy.people.map((p: { name: string }) => p.name)).toContain('Bruno Costa');
    expect(passed.stdout).toContain('1 approval policy(ies)');

    for (const member of members) {
      const dir = path.join(scratch, `changed-${member}`);
      cpSync(clean, dir, { recursive: true });
      const file = path.join(dir, member);
      const bytes = readFileSync(file);
      // The middle byte, swapped for another of its kind (a digit for a digit, a letter for a letter).
      let at = Math.floor(bytes.length / 2);
      while (!/[0-9A-Za-z]/.test(String.fromCharCode(bytes[at]!))) at++;
      const c = String.fromCharCode(bytes[at]!);
      bytes[at] = (/[0-9]/.test(c) ? (c === '7' ? '3' : '7') : c === 'x' ? 'y' : 'x').charCodeAt(0);
      writeFileSync(file, bytes);
      const failed = runVerifyMjs(dir);
      expect(failed.status, `${member}: ${failed.stdout}${failed.stderr}`).toBe(1);
      // A verify.mjs changed where it still runs says so first; changed where it no longer parses, Node names it.
      if (member === 'verify.mjs') expect(failed.stderr).toMatch(/FAIL verify\.mjs|SyntaxError|ReferenceError/);
      else expect(failed.stderr, member).toContain(`FAIL ${member}`);
    }
  },
);

test('a signer respelled in the config (case, spaces): the pack verifies under sameName, as verify does', async () => {
  const copy = copyMonth('respelled');
  const configFile = path.join(copy.dir, 'pinrecon.config.json');
  writeFileSync(configFile, readFileSync(configFile, 'utf8').replaceAll('"Bruno Costa"', '"bruno  COSTA"'));
  ok(await copy.cli('verify', '--period', period));
  const respelled = path.join(copy.dir, 'pack.zip');
  ok(await copy.cli('audit-pack', '--period', period, '--out', respelled));
  const dir = path.join(scratch, 'unzipped-respelled');
  await unzipInto(dir, respelled);
  const passed = runVerifyMjs(dir);
  expect(passed.status, `${passed.stdout}\n${passed.stderr}`).toBe(0);
  expect(passed.stdout).toContain(`bruno  COSTA: ${brunoFingerprint}`);
});
