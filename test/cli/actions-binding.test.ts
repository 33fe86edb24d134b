/**
 * Issue 28 item 4, the CLI against the simulator over real HTTP (the built CLI spawned for execute, its kill -9
 * and export; the other commands in this process, issue 27): an action is bound to the decision it was
 * planned from. A reversal whose finding is decided again before `execute` is canceled with no reversal request;
 * a journal entry decided again before `export` is canceled and is no line of the file; a kill -9 of an execute
 * with a re-decision before the re-run leaves nothing done against the new decision; a signed-off period is
 * executed only with --after-signoff, and the next report says it changed since the sign-off because of it.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { simpleParser } from 'mailparser';
import { afterEach, expect, test } from 'vitest';
import { unzipInto, runVerifyMjs } from '../support/audit-pack.js';
import { cliPath } from '../support/cli.js';
import { runCommand } from '../support/cli-in-process.js';
import { listActions } from '../../pipelines/actions/store.js';
import {
  approvedReversals,
  closeInProcess,
  decideInProcess,
  executeKilledMidReversal,
  findingsOfType,
  planAndApproveInProcess,
  period,
  reconciledMonth,
  type ActionsMonth,
} from '../support/actions.js';

let month: ActionsMonth | undefined;
/** Bruno may approve any amount (a currency without a limit fails closed: issue 34). */
const approvals = { actions: { approvalLimit: { BRL: 1_000_000 }, approvers: ['Bruno Costa'] } };
afterEach(async () => {
  await month?.close();
  month = undefined;
});

const ok = (result: { code: number | null; stderr: string; stdout: string }) =>
  expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0);

/** `findings decide` as a setup step, in this process (issue 27): a test spawns the CLI for its subject only. */
const decide = (m: ActionsMonth, ids: string[], decision: string, note = 'checked with the provider') =>
  decideInProcess(m, ids, decision, note);

/**
 * As m.cli, in this process (test/support/cli-in-process.ts): execute's wiring is its first spawned case; report,
 * verify and audit-pack are spawned in test/cli/controls-seal.test.ts.
 */
const inProcess = (m: ActionsMonth, ...args: string[]) =>
  runCommand([...args, '--config', m.configFile], {
    env: { PINRECON_API_IDENTIFIER: 'demo-partner', PINRECON_API_SECRET: 'demo-secret' },
  });

const statusOf = (m: ActionsMonth, actionId: string) =>
  m.withDatabase(
    async (w) =>
      (await w.one<{ status: string }>('SELECT status FROM recon_actions WHERE action_id = $1', [actionId]))!.status,
  );

test(
  'a reversal decided again before execute is canceled: ' + 'no reversal requested, the reason in its event',
  async () => {
    if (!existsSync(cliPath)) throw new Error('run `npm run build` first: the CLI test needs dist/');
    month = await reconciledMonth({}, approvals);
    const m = month;
    const actions = await approvedReversals(m);
    const bound = await m.withDatabase((w) =>
      w.all<{ action_id: string; bound: string | null; current: string | null }>(
        `SELECT a.action_id, a.decision_sha256 AS bound, d.row_sha256 AS current FROM recon_actions a
       JOIN recon_decisions d ON d.finding_id = a.finding_id AND d.superseded_at IS NULL WHERE a.period = $1`,
        [period],
      ),
    );
    // plan stored the decision row each action was planned from.
    expect(bound).toHaveLength(actions.size);
    for (const b of bound) expect(b.bound).toMatch(/^[0-9a-f]{64}$/);
    for (const b of bound) expect(b.bound).toBe(b.current);

    const [redecided, kept] = [...actions.keys()];
    await decide(m, [redecided!], 'claim', 'do NOT reverse: the provider owes us');
    const executed = await m.cli('actions', 'execute', '--period', period, '--by', 'Bruno Costa', '--json');
    ok(executed);
    const summary = JSON.parse(executed.stdout) as { canceled: number; verified: number };
    expect(summary.canceled).toBe(1);
    // Every other reversal went through, once; the re-decided one was never requested.
    expect(m.simulator.stats().reversals).toBe(actions.size - 1);
    const canceledTx = actions.get(redecided!)!.transaction_id;
    expect(m.simulator.dataset.saleByTransactionId(Number(canceledTx))?.status).not.toBe('Canceled in stock');
    expect(await statusOf(m, actions.get(redecided!)!.action_id)).toBe('canceled');
    expect(await statusOf(m, actions.get(kept!)!.action_id)).toBe('verified');
    const event = await m.withDatabase((w) =>
      w.one<{ detail: string }>(
        `SELECT detail FROM recon_action_events WHERE action_id = $1 AND to_status = 'canceled'`,
        [actions.get(redecided!)!.action_id],
      ),
    );
    expect(event!.detail).toMatch(/decision changed since the action was planned: it is now claim by Ana Lima/);
  },
);

test('a journal entry decided again before export is canceled and is no line of the file', async () => {
  if (!existsSync(cliPath)) throw new Error('run `npm run build` first: the CLI test needs dist/');
  month = await reconciledMonth({}, approvals);
  const m = month;
  // fix_ledger on cost mismatches: journal entries to the default accounts.
  const writeOffs = await findingsOfType(m, 'cost_mismatch');
  expect(writeOffs.length).toBeGreaterThanOrEqual(2);
  await decide(
    m,
    writeOffs.map((f) => f.finding_id),
    'fix_ledger',
  );
  await planAndApproveInProcess(m, 'Bruno Costa');
  const [redecided] = writeOffs;
  await decide(m, [redecided!.finding_id], 'accepted', 'explained: a price list change');
  const file = path.join(m.dir, 'journal.csv');
  const exported = await m.cli('actions', 'export', '--period', period, '--kind', 'journal', '--out', file, '--json');
  ok(exported);
  const summary = JSON.parse(exported.stdout) as { canceled: { actionId: string }[]; markedExecuted: number };
  expect(summary.canceled).toHaveLength(1);
  expect(summary.markedExecuted).toBe(writeOffs.length - 1);
  const csv = readFileSync(file, 'utf8');
  expect(csv).not.toContain(redecided!.finding_id);
  for (const other of writeOffs.slice(1)) expect(csv).toContain(other.finding_id);
  expect(await statusOf(m, summary.canceled[0]!.actionId)).toBe('canceled');
});

test(
  'kill -9 of an execute, the finding decided again, a ' + 're-run: nothing is reversed against the new decision',
  async () => {
    if (!existsSync(cliPath)) throw new Error('run `npm run build` first: the CLI test needs dist/');
    // The simulator reverses at once but holds its answer: the CLI is killed with one action in flight.
    month = await reconciledMonth({ reversalAnswerDelayMs: 600_000 }, approvals);
    const m = month;
    const actions = await approvedReversals(m);
    expect((await executeKilledMidReversal(m, 'Bruno Costa')).signal).toBe('SIGKILL');
    m.simulator.setReversalAnswerDelay(0);

    // Every finding is decided again (claim) while one action is in flight and the others approved.
    await decide(m, [...actions.keys()], 'claim', 'do NOT reverse');
    const rerun = await inProcess(m, 'actions', 'execute', '--period', period, '--by', 'Bruno Costa', '--json');
    ok(rerun);
    // The one request made before the kill took effect (read back: verified); no other was made.
    expect(m.simulator.stats()).toMatchObject({ reversals: 1, reversalsRefused: 0 });
    const after = await m.withDatabase((w) => listActions(w, { period }));
    expect(after.filter((a) => a.status === 'verified')).toHaveLength(1);
    expect(after.filter((a) => a.status === 'canceled')).toHaveLength(actions.size - 1);
    for (const a of after.filter((x) => x.status === 'canceled'))
      expect(m.simulator.dataset.saleByTransactionId(Number(a.transaction_id))?.status).not.toBe('Canceled in stock');
  },
);

test(
  'a signed-off period: execute refused without --after-signoff; ' + 'with it, the report says changed since sign-off',
  async () => {
    if (!existsSync(cliPath)) throw new Error('run `npm run build` first: the CLI test needs dist/');
    month = await reconciledMonth({}, approvals);
    const m = month;
    const actions = await approvedReversals(m);
    await closeInProcess(m, 'Carla Dias');

    const refused = await inProcess(m, 'actions', 'execute', '--period', period, '--by', 'Bruno Costa');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/signed off by Carla Dias/);
    expect(refused.stderr).toMatch(/--after-signoff/);
    expect(m.simulator.stats().reversals).toBe(0);

    ok(await inProcess(m, 'actions', 'execute', '--period', period, '--by', 'Bruno Costa', '--after-signoff'));
    expect(m.simulator.stats().reversals).toBe(actions.size);
    const report = await inProcess(m, 'report', '--period', period, '--email', '--dry-run', '--json');
    ok(report);
    const eml = (JSON.parse(report.stdout) as { email: { eml: string } }).email.eml;
    const mail = await simpleParser(readFileSync(eml));
    const text = `${mail.subject}\n${mail.text}`;
    expect(text, text).toMatch(/changed since sign-off by Carla Dias/);
    expect(text).toMatch(new RegExp(`${actions.size} action\\(s\\) carried out after the sign-off`));

    // Names typed (no people configured): verify passes and says so; the audit pack's verify.mjs checks everything
    // else, then exits 1 because nothing was signed with a key.
    const verified = await inProcess(m, 'verify', '--period', period);
    ok(verified);
    expect(verified.stdout).toMatch(/names typed, not attested/);
    const zipFile = path.join(m.dir, 'pack.zip');
    ok(await inProcess(m, 'audit-pack', '--period', period, '--out', zipFile));
    const unzipped = path.join(m.dir, 'pack');
    await unzipInto(unzipped, zipFile);
    const checked = runVerifyMjs(unzipped);
    expect(checked.status).toBe(1);
    expect(checked.stderr).toMatch(/^FAIL seal\.sig: empty: .*names typed, not attested/);
  },
);
