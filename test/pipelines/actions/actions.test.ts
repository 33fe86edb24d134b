/**
 * The actions verbs on a real DuckDB file: planning (idempotent, a changed decision cancels the superseded
 * proposal, reverse decisions no reversal can carry out are skipped), maker-checker, and execute against a
 * scripted upstream over real HTTP for the answers the simulator never gives in order: a sale already
 * canceled, a refusal ("already reversed") settled by reading the sale, an unknown sale, and an answer the
 * sale's status contradicts.
 */
import { readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import path from 'node:path';
import ExcelJS from 'exceljs';
import { simpleParser } from 'mailparser';
import { afterEach, expect, test } from 'vitest';
import { configSchema } from '../../../config/schema.js';
import { approveActions } from '../../../pipelines/actions/approve.js';
import { executeActions } from '../../../pipelines/actions/execute.js';
import { planActions } from '../../../pipelines/actions/plan.js';
import { listActions } from '../../../pipelines/actions/store.js';
import { decideFindings } from '../../../pipelines/decisions/findings.js';
import { reconcile } from '../../../pipelines/reconcile/reconcile.js';
import { writeReport } from '../../../pipelines/report/report.js';
import { asOf, capturingOutput, fixtureForEachTest, period } from '../../support/reconcile.js';
import { findingIdOf, planAndApprove, refundAndCostBreak } from '../../support/refunds.js';
import { authorized, closeScripted, json, sale as wireSale, setup, type Hit } from '../../support/scripted-upstream.js';

const f = fixtureForEachTest();
afterEach(closeScripted);
const quiet = () => capturingOutput().output;

/** A refunded order whose sale is still redeemed and a cost break (refundAndCostBreak); the first decided `reverse`. */
async function refundedDecidedReverse(): Promise<{ transactionId: number; findingId: string }> {
  const { refunded, refundedId: findingId } = await refundAndCostBreak(f);
  await decideFindings(f.warehouse, [findingId], { decision: 'reverse', by: 'Ana' });
  return { transactionId: refunded.transaction_id, findingId };
}

test(
  'plan: idempotent; a changed decision cancels the ' + 'proposal; a reverse no reversal can carry out is skipped',
  async () => {
    const { findingId } = await refundedDecidedReverse();
    const costId = await findingIdOf(f.warehouse, 'cost_mismatch');
    await decideFindings(f.warehouse, [costId], { decision: 'reverse', by: 'Ana' });

    const first = await planActions(f.warehouse, f.config, { period, by: 'Ana' });
    expect(first.proposed.map((p) => [p.kind, p.findingId, p.amount])).toEqual([['reversal', findingId, '8.0000']]);
    expect(first.skipped).toEqual([
      { findingId: costId, reason: 'cost_mismatch is not about a provider sale that a reversal can cancel' },
    ]);
    expect(await planActions(f.warehouse, f.config, { period, by: 'Ana' })).toMatchObject({
      proposed: [],
      canceled: [],
      unchanged: 1,
    });

    await approveActions(f.warehouse, f.config, { period, all: true, by: 'Bruno' });
    await decideFindings(f.warehouse, [findingId], { decision: 'claim', by: 'Ana' });
    await decideFindings(f.warehouse, [costId], { decision: 'write_off', note: 'too small to claim', by: 'Ana' });
    const replanned = await planActions(f.warehouse, f.config, { period, by: 'Ana' });
    expect(replanned.canceled).toEqual([
      { actionId: first.proposed[0]!.actionId, reason: 'the decision changed from reverse to claim' },
    ]);
    expect(replanned.proposed.map((p) => [p.kind, p.findingId]).sort()).toEqual(
      [
        ['claim', findingId],
        ['journal', costId],
      ].sort(),
    );
    const actions = await listActions(f.warehouse, { period });
    expect(actions.map((a) => [a.action_id, a.status])).toEqual([
      [first.proposed[0]!.actionId, 'canceled'],
      ...replanned.proposed.map((p) => [p.actionId, 'proposed']),
    ]);
    // Every change is an event, appended.
    const events = await f.warehouse.all<{ from_status: string | null; to_status: string }>(
      `SELECT from_status, to_status FROM recon_action_events WHERE action_id = $1 ORDER BY "at"`,
      [first.proposed[0]!.actionId],
    );
    const moves = events.map((e) => `${e.from_status} → ${e.to_status}`);
    expect(moves).toEqual(['null → proposed', 'proposed → approved', 'approved → canceled']);
  },
);

test(
  'approve: refused as a whole when one action was decided ' +
    'by the approver, or is above the limit for a non-approver',
  async () => {
    await refundedDecidedReverse();
    await planActions(f.warehouse, f.config, { period, by: 'Ana' });
    await expect(approveActions(f.warehouse, f.config, { period, all: true, by: ' ana ' })).rejects.toThrow(
      /decided its finding \(reverse\); another person must approve it/,
    );
    const limited = configSchema.parse({ ...f.config, actions: { approvalLimit: { BRL: 5 }, approvers: ['Chief'] } });
    await expect(approveActions(f.warehouse, limited, { period, all: true, by: 'Bruno' })).rejects.toThrow(
      /above actions\.approvalLimit\.BRL \(5\): only Chief/,
    );
    expect((await listActions(f.warehouse, { period })).map((a) => a.status)).toEqual(['proposed']);
    const unknown = approveActions(f.warehouse, limited, { period, actionIds: ['A-2024-03-9999'], by: 'Chief' });
    await expect(unknown).rejects.toThrow(/No action A-2024-03-9999/);
    expect((await approveActions(f.warehouse, limited, { period, all: true, by: 'Chief' })).approved).toHaveLength(1);
  },
);

/** A scripted provider: the sale reads `statuses` in turn (the last one repeats); the reversal answers `reversal`. */
async function provider(
  transactionId: number,
  statuses: (string | null)[],
  reversal: (res: ServerResponse) => void,
  api: Record<string, unknown> = {},
) {
  let reads = 0;
  return setup((hit: Hit, res, upstream) => {
    if (!authorized(hit, res, upstream)) return;
    if (hit.path === '/catalog/partner/collections') return json(res, 200, []);
    if (hit.path === `/sales/transaction/${transactionId}`) {
      const status = statuses[Math.min(reads++, statuses.length - 1)];
      if (status === null)
        return json(res, 400, { message: `Transaction ${transactionId} does not exist.`, code: 'unknown_transaction' });
      return json(res, 200, { ...wireSale(transactionId, `PO-${transactionId}`, status), partnerCostPrice: 8 });
    }
    if (hit.path === '/reversal' && hit.method === 'POST') return reversal(res);
    json(res, 404, { message: 'no such path' });
  }, api);
}

async function approvedReversal(): Promise<number> {
  const { transactionId } = await refundedDecidedReverse();
  await planAndApprove(f);
  return transactionId;
}

const statusOf = async (id: number) =>
  (await f.warehouse.one<{ status: string }>(`SELECT status FROM sales WHERE transaction_id = $1`, [id]))!.status;

test('execute: a sale already canceled at the provider is verified with no reversal requested', async () => {
  const id = await approvedReversal();
  const { upstream, client } = await provider(id, ['Canceled in stock'], (res) => json(res, 500, {}));
  const result = await executeActions(f.warehouse, f.config, { period, by: 'Bruno', client }, quiet());
  expect(result).toMatchObject({
    verified: 1,
    failed: 0,
    actions: [{ outcome: 'verified', reversalRequested: false }],
  });
  expect(upstream.hitsOn('/reversal')).toHaveLength(0);
  expect(await statusOf(id)).toBe('Canceled in stock');
});

test('execute: an "already reversed" refusal is not retried; reading the sale settles it as verified', async () => {
  const id = await approvedReversal();
  const { upstream, client } = await provider(id, ['Redeemed by Client', 'Canceled in stock'], (res) =>
    json(res, 400, { message: `Transaction ${id} was already reversed.`, code: 'already_reversed' }),
  );
  const result = await executeActions(f.warehouse, f.config, { period, by: 'Bruno', client }, quiet());
  expect(result).toMatchObject({ verified: 1, failed: 0, actions: [{ outcome: 'verified', reversalRequested: true }] });
  expect(upstream.hitsOn('/reversal')).toHaveLength(1);
  const [action] = await listActions(f.warehouse, { period });
  expect(action).toMatchObject({ status: 'verified', provider_status: 'Canceled in stock' });
  // Issue 34: the provider's words are not stored, only the size and digest of its answer.
  expect(action!.provider_message).toMatch(/^a body of \d+ bytes, sha256 [0-9a-f]{16}$/);
  // The sale read is in `sales`: the next reconcile sees it canceled, and the finding clears.
  expect(await statusOf(id)).toBe('Canceled in stock');
  await reconcile(f.warehouse, f.config, { period, asOf }, quiet());
  expect(
    await f.warehouse.all(`SELECT 1 FROM recon_exceptions WHERE exception_type = 'refunded_not_reversed'`),
  ).toEqual([]);
});

test(
  'execute: an unknown sale fails without a call; a ' + 'reversal the sale contradicts fails; nothing runs twice',
  async () => {
    const id = await approvedReversal();
    const unknown = await provider(id, [null], (res) => json(res, 500, {}));
    const missing = await executeActions(
      f.warehouse,
      f.config,
      { period, by: 'Bruno', client: unknown.client },
      quiet(),
    );
    expect(missing).toMatchObject({ failed: 1, actions: [{ outcome: 'failed', reversalRequested: false }] });
    expect(missing.actions[0]!.detail).toMatch(/does not know transaction/);
    expect(unknown.upstream.hitsOn('/reversal')).toHaveLength(0);
    // A failed action is not executed again.
    expect(
      (await executeActions(f.warehouse, f.config, { period, by: 'Bruno', client: unknown.client }, quiet())).actions,
    ).toEqual([]);

    // Planned again (a failed action does not hold the finding's place), approved, and this time the provider
    // says "reversed" while the sale still reads redeemed.
    await planAndApprove(f);
    const contradicting = await provider(id, ['Redeemed by Client'], (res) =>
      json(res, 200, { message: 'Transaction reversed successfully', status: 'Canceled in stock', transactionId: id }),
    );
    const result = await executeActions(
      f.warehouse,
      f.config,
      { period, by: 'Bruno', client: contradicting.client },
      quiet(),
    );
    expect(result).toMatchObject({ failed: 1, actions: [{ outcome: 'failed', reversalRequested: true }] });
    expect(result.actions[0]!.detail).toMatch(/still reads "Redeemed by Client".*Transaction reversed successfully/);
    expect(contradicting.upstream.hitsOn('/reversal')).toHaveLength(1);

    // The report: the Actions sheet holds every action; the email names the failed ones and those waiting for approval.
    const costId = await findingIdOf(f.warehouse, 'cost_mismatch');
    await decideFindings(f.warehouse, [costId], { decision: 'claim', by: 'Ana' });
    // Planning again proposes the claim, and the reversal once more (a failed action needs a new approval to be tried
    // again).
    const waiting = (await planActions(f.warehouse, f.config, { period, by: 'Ana' })).proposed;
    // Proposed in finding-id order (an md5 of the reference and sale): which kind comes first is not the point.
    expect(waiting.map((p) => p.kind).sort()).toEqual(['claim', 'reversal']);
    const claim = waiting.find((p) => p.kind === 'claim')!;
    await writeReport(f.warehouse, f.config, { period, email: true, dryRun: true }, quiet());
    const mail = await simpleParser(readFileSync(path.join(f.config.reports.outDir, `pinrecon-${period}.eml`)));
    expect(mail.text).toMatch(/Actions waiting for approval \(pinrecon actions approve\): 2\n/);
    expect(mail.text).toMatch(new RegExp(`\\n  ${claim.actionId} claim 1\\.0000 BRL`));
    expect(mail.text).toMatch(
      /Failed actions: 2\n {2}A-2024-03-0001 reversal 8\.0000 BRL tx \d+ PO-\d+ — the provider does not know/,
    );
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.readFile(path.join(f.config.reports.outDir, `pinrecon-${period}.xlsx`));
    expect(workbook.getWorksheet('Actions')!.getColumn(3).values.slice(2)).toEqual([
      'failed',
      'failed',
      'proposed',
      'proposed',
    ]);
  },
);

test(
  'execute: a provider that cannot be reached leaves the ' + 'action in flight, for a re-run to settle by reading',
  async () => {
    const id = await approvedReversal();
    // one retry, not six backoffs of up to 8 s: what is left in flight is the point, not the patience
    const down = await provider(id, ['Redeemed by Client'], (res) => res.socket?.destroy(), { maxRetries: 1 });
    // Issue 34: a dropped reversal is sent once, never retried; the action stays in flight, said so.
    const interrupted = await executeActions(
      f.warehouse,
      f.config,
      { period, by: 'Bruno', client: down.client },
      quiet(),
    );
    expect(interrupted).toMatchObject({ inFlight: 1, actions: [{ outcome: 'in_flight', reversalRequested: true }] });
    expect(down.upstream.hitsOn('/reversal')).toHaveLength(1);
    expect((await listActions(f.warehouse, { period })).map((a) => a.status)).toEqual(['in_flight']);
    const back = await provider(id, ['Canceled in stock'], (res) => json(res, 500, {}));
    const settled = await executeActions(f.warehouse, f.config, { period, by: 'Bruno', client: back.client }, quiet());
    expect(settled.actions[0]).toMatchObject({ outcome: 'verified', reversalRequested: false });
    expect(settled.actions[0]!.detail).toMatch(/interrupted execute/);
    expect(back.upstream.hitsOn('/reversal')).toHaveLength(0);
  },
);
