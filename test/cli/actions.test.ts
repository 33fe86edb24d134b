/**
 * `pinrecon actions` end to end, the built CLI against the simulator over real HTTP: decide `reverse` on the
 * refunded_not_reversed findings → plan → approve by the decider (refused, nothing changes) → approve by
 * another → execute → reconcile: those findings are gone, each transaction reversed exactly once. Then a
 * kill -9 while a reversal's answer is on its way, and a re-run: still exactly once.
 */
import { existsSync } from 'node:fs';
import { afterEach, expect, test } from 'vitest';
import { cliPath } from '../support/cli.js';
import { findingsOfType, period, asOf, reconciledMonth, type ActionsMonth } from '../support/actions.js';

let month: ActionsMonth | undefined;
afterEach(async () => {
  await month?.close();
  month = undefined;
});

type Listed = { action_id: string; kind: string; status: string; transaction_id: string | null; finding_id: string; approved_by: string | null };

async function listed(m: ActionsMonth): Promise<Listed[]> {
  const result = await m.cli('actions', 'list', '--period', period, '--format', 'json');
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as Listed[];
}

async function decideReverseAndApprove(m: ActionsMonth): Promise<{ ids: string[]; transactions: string[] }> {
  const refunded = await findingsOfType(m, 'refunded_not_reversed');
  expect(refunded.length).toBeGreaterThanOrEqual(2);
  const decided = await m.cli('findings', 'decide', ...refunded.map((f) => f.finding_id), '--decision', 'reverse', '--by', 'Ana Lima');
  expect(decided.code, decided.stderr).toBe(0);

  const plan = await m.cli('actions', 'plan', '--period', period, '--by', 'Ana Lima');
  expect(plan.code, plan.stderr).toBe(0);
  const reversals = (await listed(m)).filter((a) => a.kind === 'reversal');
  expect(reversals.map((a) => a.finding_id).sort()).toEqual(refunded.map((f) => f.finding_id).sort());
  expect(reversals.every((a) => a.status === 'proposed')).toBe(true);
  // Planning again changes nothing.
  const again = await m.cli('actions', 'plan', '--period', period, '--by', 'Ana Lima', '--json');
  expect(JSON.parse(again.stdout)).toMatchObject({ proposed: [], canceled: [], unchanged: reversals.length });

  // Maker-checker: the person who decided may not approve; nothing changes.
  const self = await m.cli('actions', 'approve', '--period', period, '--all', '--by', 'ana lima');
  expect(self.code).toBe(1);
  expect(self.stderr).toMatch(/decided its finding/);
  expect((await listed(m)).every((a) => a.status === 'proposed')).toBe(true);

  const approved = await m.cli('actions', 'approve', '--period', period, '--all', '--by', 'Bruno Costa');
  expect(approved.code, approved.stderr).toBe(0);
  const after = await listed(m);
  expect(after.every((a) => a.status === 'approved' && a.approved_by === 'Bruno Costa')).toBe(true);
  return { ids: after.map((a) => a.action_id), transactions: after.map((a) => a.transaction_id!) };
}

test('decide reverse → plan → approve (not by the decider) → execute → reconcile: the findings are gone, each sale reversed once', async () => {
  if (!existsSync(cliPath)) throw new Error('run `npm run build` first: the CLI test needs dist/');
  month = await reconciledMonth();
  const m = month;
  const { transactions } = await decideReverseAndApprove(m);

  const dry = await m.cli('actions', 'execute', '--period', period, '--dry-run');
  expect(dry.code, dry.stderr).toBe(0);
  expect(m.simulator.stats().reversals).toBe(0);

  const executed = await m.cli('actions', 'execute', '--period', period, '--by', 'Bruno Costa');
  expect(executed.code, executed.stderr).toBe(0);
  expect(m.simulator.stats()).toMatchObject({ reversals: transactions.length, reversalsRefused: 0 });
  for (const id of transactions) expect(m.simulator.dataset.saleByTransactionId(Number(id))?.status).toBe('Canceled in stock');
  expect((await listed(m)).every((a) => a.status === 'verified')).toBe(true);

  // Executing again calls nothing: there is nothing approved left.
  const rerun = await m.cli('actions', 'execute', '--period', period);
  expect(rerun.code, rerun.stderr).toBe(0);
  expect(m.simulator.stats().reversals).toBe(transactions.length);

  // The sales execute read are in `sales`: reconcile clears the findings without re-extracting.
  const reconciled = await m.cli('reconcile', '--period', period, '--as-of', asOf);
  expect(reconciled.code, reconciled.stderr).toBe(0);
  expect(await findingsOfType(m, 'refunded_not_reversed')).toEqual([]);
  const events = await m.withDatabase((w) =>
    w.all<{ to_status: string }>(`SELECT to_status FROM recon_action_events ORDER BY "at", to_status`),
  );
  expect(events.filter((e) => e.to_status === 'verified')).toHaveLength(transactions.length);
});

test('kill -9 while a reversal is answered, then a re-run: each transaction reversed exactly once, settled by reading the sale', async () => {
  if (!existsSync(cliPath)) throw new Error('run `npm run build` first: the CLI test needs dist/');
  // The simulator reverses at once but holds its answer: the CLI is killed before it learns of the reversal.
  month = await reconciledMonth({ reversalAnswerDelayMs: 600_000 });
  const m = month;
  const { transactions } = await decideReverseAndApprove(m);

  const running = m.startCli('actions', 'execute', '--period', period, '--by', 'Bruno Costa');
  while (m.simulator.stats().reversals === 0) {
    if (running.child.exitCode !== null) throw new Error(`execute ended before reversing: ${running.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  running.child.kill('SIGKILL');
  const killed = await running.done;
  expect(killed.signal).toBe('SIGKILL');
  expect(m.simulator.stats().reversals).toBe(1);
  const inFlight = (await listed(m)).filter((a) => a.status === 'in_flight');
  expect(inFlight).toHaveLength(1);

  m.simulator.setReversalAnswerDelay(0);
  const rerun = await m.cli('actions', 'execute', '--period', period, '--by', 'Bruno Costa');
  expect(rerun.code, rerun.stderr).toBe(0);
  expect(rerun.stdout).toMatch(/interrupted execute/);
  // Exactly once each: no second request for the one in flight, and no "already reversed" refusal.
  expect(m.simulator.stats()).toMatchObject({ reversals: transactions.length, reversalsRefused: 0 });
  expect((await listed(m)).every((a) => a.status === 'verified')).toBe(true);
  for (const id of transactions) expect(m.simulator.dataset.saleByTransactionId(Number(id))?.status).toBe('Canceled in stock');

  const reconciled = await m.cli('reconcile', '--period', period, '--as-of', asOf);
  expect(reconciled.code, reconciled.stderr).toBe(0);
  expect(await findingsOfType(m, 'refunded_not_reversed')).toEqual([]);
});
