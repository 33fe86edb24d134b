/**
 * `pinrecon actions` end to end, the built CLI against the simulator over real HTTP: decide `reverse` on the
 * refunded_not_reversed findings → plan → approve by the decider (refused, nothing changes) → approve by
 * another → execute → reconcile: those findings are gone, each transaction reversed exactly once. Then a
 * kill -9 while a reversal's answer is on its way, and a re-run: still exactly once.
 *
 * Each command is spawned once, for its wiring as users run it (the killed execute and its re-run are spawned:
 * they need a process of their own); the other runs, and the reconcile and report after them, run in this process.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import ExcelJS from 'exceljs';
import { afterEach, expect, test } from 'vitest';
import { cliPath, type CliResult } from '../support/cli.js';
import { runCommand } from '../support/cli-in-process.js';
import { listActions } from '../../pipelines/actions/store.js';
import {
  approvedReversals,
  asOf,
  executeKilledMidReversal,
  findingsOfType,
  period,
  reconciledMonth,
  reconcileInProcess,
  type ActionsMonth,
} from '../support/actions.js';

let month: ActionsMonth | undefined;
afterEach(async () => {
  await month?.close();
  month = undefined;
});

/** `m.cli`'s command in this process: its config and API credentials, as test/support/actions.ts gives them. */
function inProcess(m: ActionsMonth, ...args: string[]): Promise<CliResult> {
  const env = { PINRECON_API_IDENTIFIER: 'demo-partner', PINRECON_API_SECRET: 'demo-secret' };
  return runCommand([...args, '--config', m.configFile], { env });
}

type Listed = {
  action_id: string;
  kind: string;
  status: string;
  transaction_id: string | null;
  finding_id: string;
  approved_by: string | null;
};

/** The period's actions, read in this process by what `actions list` runs (each spawn costs seconds of CPU). */
async function listed(m: ActionsMonth): Promise<Listed[]> {
  return m.withDatabase((w) => listActions(w, { period }));
}

/** `actions list --format json` through the CLI: exactly the actions `listed` reads. */
async function listedByCli(m: ActionsMonth): Promise<Listed[]> {
  const result = await m.cli('actions', 'list', '--period', period, '--format', 'json');
  expect(result.code, result.stderr).toBe(0);
  const printed = JSON.parse(result.stdout) as Listed[];
  expect(printed).toEqual(await listed(m));
  return printed;
}

async function decideReverseAndApprove(
  m: ActionsMonth,
  approver = 'Bruno Costa',
): Promise<{ ids: string[]; transactions: string[] }> {
  const refunded = await findingsOfType(m, 'refunded_not_reversed');
  expect(refunded.length).toBeGreaterThanOrEqual(2);
  const decided = await m.cli(
    'findings',
    'decide',
    ...refunded.map((f) => f.finding_id),
    '--decision',
    'reverse',
    '--by',
    'Ana Lima',
  );
  expect(decided.code, decided.stderr).toBe(0);

  const plan = await m.cli('actions', 'plan', '--period', period, '--by', 'Ana Lima');
  expect(plan.code, plan.stderr).toBe(0);
  const reversals = (await listedByCli(m)).filter((a) => a.kind === 'reversal');
  expect(reversals.map((a) => a.finding_id).sort()).toEqual(refunded.map((f) => f.finding_id).sort());
  expect(reversals.every((a) => a.status === 'proposed')).toBe(true);
  // Planning again changes nothing.
  const again = await inProcess(m, 'actions', 'plan', '--period', period, '--by', 'Ana Lima', '--json');
  expect(JSON.parse(again.stdout)).toMatchObject({ proposed: [], canceled: [], unchanged: reversals.length });

  // Maker-checker: the person who decided may not approve; nothing changes.
  const self = await m.cli('actions', 'approve', '--period', period, '--all', '--by', 'ana lima');
  expect(self.code).toBe(1);
  expect(self.stderr).toMatch(/decided its finding/);
  expect((await listed(m)).every((a) => a.status === 'proposed')).toBe(true);

  if (approver !== 'Bruno Costa') {
    // Above actions.approvalLimit only one of actions.approvers may approve.
    const overLimit = await inProcess(m, 'actions', 'approve', '--period', period, '--all', '--by', 'Bruno Costa');
    expect(overLimit.code).toBe(1);
    expect(overLimit.stderr).toMatch(/above actions\.approvalLimit\.BRL/);
    expect((await listed(m)).every((a) => a.status === 'proposed')).toBe(true);
  }
  const approved = await inProcess(m, 'actions', 'approve', '--period', period, '--all', '--by', approver);
  expect(approved.code, approved.stderr).toBe(0);
  const after = await listed(m);
  expect(after.every((a) => a.status === 'approved' && a.approved_by === approver)).toBe(true);
  return { ids: after.map((a) => a.action_id), transactions: after.map((a) => a.transaction_id!) };
}

test(
  'decide reverse → plan → approve (not by the decider) → ' +
    'execute → reconcile: findings gone, each sale reversed once',
  async () => {
    if (!existsSync(cliPath)) throw new Error('run `npm run build` first: the CLI test needs dist/');
    // A sales-price difference posts to accounts of its own (issue 30): price_mismatch's.
    const journal = {
      accounts: { default: { debit: '6100', credit: '2100' }, price_mismatch: { debit: '4100', credit: '1200' } },
    };
    month = await reconciledMonth(
      {},
      { actions: { approvalLimit: { BRL: 1 }, approvers: ['Chief Controller'] }, journal },
    );
    const m = month;
    const { transactions } = await decideReverseAndApprove(m, 'Chief Controller');

    const dry = await inProcess(m, 'actions', 'execute', '--period', period, '--dry-run');
    expect(dry.code, dry.stderr).toBe(0);
    expect(m.simulator.stats().reversals).toBe(0);

    const executed = await inProcess(m, 'actions', 'execute', '--period', period, '--by', 'Bruno Costa');
    expect(executed.code, executed.stderr).toBe(0);
    expect(m.simulator.stats()).toMatchObject({ reversals: transactions.length, reversalsRefused: 0 });
    for (const id of transactions)
      expect(m.simulator.dataset.saleByTransactionId(Number(id))?.status).toBe('Canceled in stock');
    expect((await listed(m)).every((a) => a.status === 'verified')).toBe(true);

    // Executing again calls nothing: there is nothing approved left.
    const rerun = await inProcess(m, 'actions', 'execute', '--period', period);
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(m.simulator.stats().reversals).toBe(transactions.length);

    // Claims and journal entries: decided, planned, approved, exported, and read back.
    const claims = await findingsOfType(m, 'cost_mismatch');
    const writeOffs = await findingsOfType(m, 'price_mismatch');
    const ledgerFixes = await findingsOfType(m, 'missing_in_ledger');
    expect(claims.length * writeOffs.length * ledgerFixes.length).toBeGreaterThan(0);
    for (const [found, decision] of [
      [claims, 'claim'],
      [writeOffs, 'write_off'],
      [ledgerFixes, 'fix_ledger'],
    ] as const) {
      const ids = found.map((f) => f.finding_id);
      const decided = await inProcess(
        m,
        'findings',
        'decide',
        ...ids,
        '--decision',
        decision,
        '--note',
        '=HYPERLINK("x")',
        '--by',
        'Ana Lima',
      );
      expect(decided.code, decided.stderr).toBe(0);
    }
    expect((await inProcess(m, 'actions', 'plan', '--period', period, '--by', 'Ana Lima')).code).toBe(0);
    const approvedAll = await inProcess(
      m,
      'actions',
      'approve',
      '--period',
      period,
      '--all',
      '--by',
      'Chief Controller',
    );
    expect(approvedAll.code, approvedAll.stderr).toBe(0);
    const files = await exportAll(m);
    // A claim holds the overcharges only (issue 30); the undercharges are exported apart.
    const differences = new Map(
      claims.filter((f) => Number(f.difference) > 0).map((f) => [f.finding_id, f.difference]),
    );
    for (const rows of [files.claimsXlsx, files.claimsCsv]) {
      const byFinding = new Map(rows.map((r) => [r['Finding ID'], r]));
      expect([...byFinding.keys()].sort()).toEqual([...differences.keys()].sort());
      for (const [id, difference] of differences)
        expect(tenThousandths(byFinding.get(id)!['Difference'])).toBe(tenThousandths(difference));
      for (const row of rows) expect(String(row['Key (last 4)'] ?? '')).toMatch(/^(\*{4}.{4}|\*{4}|)$/);
    }
    const claimedTotal = [...differences.values()].reduce((sum, d) => sum + tenThousandths(d), 0);
    expect(files.claimsTotals.map((t) => tenThousandths(t.Difference)).reduce((a, b) => a + b, 0)).toBe(claimedTotal);
    // A note that would be a formula is text in the CSV.
    expect(files.claimsCsv.every((r) => r['Note'] === `'=HYPERLINK("x")`)).toBe(true);
    for (const rows of [files.journalXlsx, files.journalCsv]) {
      expect(new Set(rows.map((r) => r.entry_id)).size).toBe(writeOffs.length + ledgerFixes.length);
      const balance = new Map<string, number>();
      for (const r of rows) {
        const entry = String(r.entry_id);
        balance.set(entry, (balance.get(entry) ?? 0) + tenThousandths(r.debit) - tenThousandths(r.credit));
      }
      for (const [entry, net] of balance) expect(net, `entry ${entry}`).toBe(0);
      expect(rows.every((r) => ['6100', '2100', '4100', '1200'].includes(String(r.account)))).toBe(true);
    }
    const undercharges = await inProcess(m, 'actions', 'export', '--period', period, '--kind', 'undercharge');
    expect(undercharges.code, undercharges.stderr).toBe(0);
    expect((await listed(m)).filter((a) => a.kind !== 'reversal').every((a) => a.status === 'executed')).toBe(true);

    // The sales execute read are in `sales`: reconcile clears the findings without re-extracting.
    const reconciled = await inProcess(m, 'reconcile', '--period', period, '--as-of', asOf);
    expect(reconciled.code, reconciled.stderr).toBe(0);
    expect(await findingsOfType(m, 'refunded_not_reversed')).toEqual([]);
    const events = await m.withDatabase((w) =>
      w.all<{ to_status: string }>(`SELECT to_status FROM recon_action_events ORDER BY "at", to_status`),
    );
    expect(events.filter((e) => e.to_status === 'verified')).toHaveLength(transactions.length);
    // The roll-forward of a month with cleared and written-off findings adds up (its data test passed too).
    const rollForward = await m.withDatabase((w) =>
      w.all<{ cleared: string; written_off: string; check_count: string; check_amount: string }>(
        `SELECT cleared::VARCHAR AS cleared, written_off::VARCHAR AS written_off, check_count::VARCHAR AS check_count,
              check_amount::VARCHAR AS check_amount
       FROM recon_roll_forward WHERE period = $1`,
        [period],
      ),
    );
    expect(rollForward.reduce((sum, r) => sum + Number(r.cleared), 0)).toBeGreaterThanOrEqual(transactions.length);
    expect(rollForward.reduce((sum, r) => sum + Number(r.written_off), 0)).toBe(writeOffs.length);
    for (const r of rollForward)
      expect([tenThousandths(r.check_count), tenThousandths(r.check_amount)]).toEqual([0, 0]);

    // The workbook shows every action and the roll-forward.
    const report = await inProcess(m, 'report', '--period', period);
    expect(report.code, report.stderr).toBe(0);
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.readFile(path.join(m.dir, 'reports', `pinrecon-${period}.xlsx`));
    const actionsSheet = workbook.getWorksheet('Actions')!;
    expect(actionsSheet.rowCount - 1).toBe((await listed(m)).length);
    const summaryTexts = (workbook.getWorksheet('Summary')!.getSheetValues() as unknown[][]).flat();
    expect(summaryTexts).toContain('Roll-forward of open findings per currency');
  },
);

/**
 * Exports claims and journal as xlsx and csv through the CLI and reads each back (exceljs; its CSV reader, values kept
 * as text). The first export is spawned (the command's wiring), the others run in this process.
 */
async function exportAll(m: ActionsMonth) {
  const out = (name: string) => path.join(m.dir, 'exports', name);
  const files = [
    ['claim', 'xlsx', 'claims.xlsx'],
    ['claim', 'csv', 'claims.csv'],
    ['journal', 'xlsx', 'journal.xlsx'],
    ['journal', 'csv', 'journal.csv'],
  ];
  for (const [index, [kind, format, name]] of files.entries()) {
    const run = index === 0 ? m.cli : (...args: string[]) => inProcess(m, ...args);
    const result = await run(
      'actions',
      'export',
      '--period',
      period,
      '--kind',
      kind!,
      '--format',
      format!,
      '--out',
      out(name!),
      // The second file of a kind repeats the lines of the first (issue 30: only with --all).
      ...(format === 'csv' ? ['--all'] : []),
    );
    expect(result.code, result.stderr).toBe(0);
  }
  const xlsxRows = async (file: string) => {
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.readFile(file);
    const values = dense(workbook.worksheets[0]!.getSheetValues() as unknown[][]);
    // A claim opens with its heading and totals (issue 30); the table starts at its header row.
    const table = values.findIndex((row) => row[0] === 'Line' || row[0] === 'date');
    const body = blocks(values.slice(table));
    if (table <= 0) return body;
    // The heading's totals: the header line with Currency, then one line per currency up to the blank row.
    const heading = values.slice(0, table);
    const at = heading.findIndex((row) => row.includes('Currency') || row.includes('currency'));
    const totals = heading.slice(at + 1).filter((row) => row.some((v) => v !== undefined && v !== null && v !== ''));
    return { rows: body.rows, totals: blocks([heading[at]!, ...totals]).rows };
  };
  const csvRows = async (file: string) => {
    const workbook = new ExcelJS.Workbook();
    const sheet = await workbook.csv.readFile(file, { map: (value: unknown) => value } as never);
    return blocks(dense(sheet.getSheetValues() as unknown[][]));
  };
  const claimsXlsx = await xlsxRows(out('claims.xlsx'));
  const claimsCsv = await csvRows(out('claims.csv'));
  const journalXlsx = await xlsxRows(out('journal.xlsx'));
  const journalCsv = await csvRows(out('journal.csv'));
  // The same totals in both files.
  const totals = (rows: Record<string, unknown>[]) => rows.map((t) => [t.Currency, tenThousandths(t.Difference)]);
  expect(totals(claimsCsv.totals)).toEqual(totals(claimsXlsx.totals));
  return {
    claimsXlsx: claimsXlsx.rows,
    claimsCsv: claimsCsv.rows,
    claimsTotals: claimsCsv.totals,
    journalXlsx: journalXlsx.rows,
    journalCsv: journalCsv.rows,
  };
}

/** exceljs's sheet values (1-based, sparse) as plain rows from the first. */
function dense(values: unknown[][]): unknown[][] {
  return Array.from(values)
    .slice(1)
    .map((row) => Array.from(row ?? []).slice(1));
}

/** A file's rows as objects by header, and the totals block after the blank row (with its own header line). */
function blocks(values: unknown[][]): { rows: Record<string, unknown>[]; totals: Record<string, unknown>[] } {
  const isBlank = (row: unknown[]) => row.every((v) => v === undefined || v === null || v === '');
  const asObjects = (header: unknown[], rows: unknown[][]) =>
    rows.map((row) => Object.fromEntries(header.map((h, i) => [String(h), row[i] ?? null])));
  const blank = values.findIndex(isBlank);
  const rows = blank < 0 ? values.slice(1) : values.slice(1, blank);
  const rest = blank < 0 ? [] : values.slice(blank + 1).filter((row) => !isBlank(row));
  // The xlsx puts a title line over its totals header.
  const totalsStart = rest.findIndex((row) => row.includes('Currency') || row.includes('currency'));
  const totals = totalsStart < 0 ? [] : asObjects(rest[totalsStart]!, rest.slice(totalsStart + 1));
  return { rows: asObjects(values[0]!, rows), totals };
}

/** Exact money as an integer of ten-thousandths (a CSV's text, a cell's number, DuckDB's decimal text). */
function tenThousandths(value: unknown): number {
  return Math.round(Number(value) * 10_000);
}

test(
  'kill -9 while a reversal is answered, then a re-run: ' + 'each sale reversed exactly once, settled by reading it',
  async () => {
    if (!existsSync(cliPath)) throw new Error('run `npm run build` first: the CLI test needs dist/');
    // The simulator reverses at once but holds its answer: the CLI is killed before it learns of the reversal.
    month = await reconciledMonth({ reversalAnswerDelayMs: 600_000 });
    const m = month;
    // Decided, planned and approved in this process: the first test proves those commands (issue 27).
    const transactions = [...(await approvedReversals(m)).values()].map((a) => a.transaction_id);

    const killed = await executeKilledMidReversal(m, 'Bruno Costa');
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
    for (const id of transactions)
      expect(m.simulator.dataset.saleByTransactionId(Number(id))?.status).toBe('Canceled in stock');

    await reconcileInProcess(m);
    expect(await findingsOfType(m, 'refunded_not_reversed')).toEqual([]);
  },
);
