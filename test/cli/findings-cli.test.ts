/**
 * Decisions the way a controller makes them, through the built CLI: reconcile and report, decisions typed
 * into the workbook, `findings import` (recorded and refused rows printed with sheet and row; a second
 * import changes nothing), `findings list` and `decide`, two re-runs of reconcile keeping the decisions, the
 * next workbook showing them; and a workbook saved by LibreOffice (a real round trip through `soffice`, when
 * this machine has it) imported the same way, and printed to PDF in landscape. Then (issue 14): a workbook
 * edited over a decision taken after it was written is refused row by row (through LibreOffice), rows left
 * as written are unchanged, --overwrite records them, --json lists every row; decide in bulk by period and
 * filters (a dry run first); `findings history` says who decided what, when (with the zone) and from where.
 *
 * Each findings command is spawned once, for its wiring as users run it; its other runs are in this process.
 */
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { readPdfPages, type PdfPage } from '../support/pdf.js';
import { readDecisionsWorkbook } from '../../reports/decisions-reader.js';
import { withWarehouse } from '../../core/warehouse.js';
import { listFindings } from '../../pipelines/decisions/findings-list.js';
import { runCli, type CliResult } from '../support/cli.js';
import { runCommand } from '../support/cli-in-process.js';
import { decideStep, reconcileStep, reportStep } from '../support/commands.js';
import type { Config } from '../../config/schema.js';
import { openFixture, type Fixture } from '../support/reconcile.js';
import {
  asOf,
  convertWithSoffice,
  fillFindings,
  hasSoffice,
  period,
  typeDecisions,
  type PeriodFindings,
} from '../support/decisions.js';

const env = { CI: 'true', PINRECON_SMTP_URL: '' };
/** Spawns the built CLI. */
const pinrecon = (args: string[], cwd: string) => runCli(args, { cwd, env });
/** The same command in this process. */
const inProcess = (args: string[], cwd: string) => runCommand(args, { cwd, env });

interface Listed {
  finding_id: string;
  partner_reference: string;
  decision: string | null;
  owner: string | null;
  state: string;
}

describe('pinrecon findings', () => {
  let f: Fixture;
  /** The config the CLI reads (pinrecon.config.json), for the setup steps run in this process. */
  let config: Config;
  let found: PeriodFindings;
  let cwd: string;
  let workbook: string;
  /** The period's findings, read in this process by what `findings list` runs (a spawn costs seconds of CPU). */
  const list = async (options: { undecided?: boolean } = {}): Promise<Listed[]> =>
    withWarehouse(f.config.database, { timezone: f.config.timezone }, (w) =>
      listFindings(w, { period, undecided: options.undecided }),
    );
  /** `findings list --format json` through the CLI (spawned by `run` or in this process): exactly what `list` reads. */
  const listByCli = async (
    run: (args: string[], cwd: string) => Promise<CliResult>,
    ...extra: string[]
  ): Promise<Listed[]> => {
    const result = await run(['findings', 'list', '--period', period, '--format', 'json', ...extra], cwd);
    expect(result.code, result.stderr).toBe(0);
    const printed = JSON.parse(result.stdout) as Listed[];
    expect(printed).toEqual(await list({ undecided: extra.includes('--undecided') }));
    return printed;
  };
  const idOf = async (reference: string | null) =>
    (await list()).find((r) => r.partner_reference === reference)!.finding_id;

  beforeAll(async () => {
    f = await openFixture();
    found = await fillFindings(f);
    f.warehouse.close(); // the CLI opens the database itself
    cwd = f.dir;
    writeFileSync(
      path.join(cwd, 'pinrecon.config.json'),
      JSON.stringify({
        timezone: f.config.timezone,
        database: 'pinrecon.duckdb',
        reports: { outDir: 'reports' },
        reconciliation: { costTolerance: 0.01, unredeemedAfterDays: 3, lookupMissing: false },
      }),
    );
    // Reconcile and report as setup, in this process: this file spawns the CLI for the findings commands (issue 27).
    config = { ...f.config, reports: { ...f.config.reports, outDir: path.join(cwd, 'reports') } };
    await reconcileStep(config, { period, asOf });
    await reportStep(config, { period });
    workbook = path.join(cwd, 'reports', `pinrecon-${period}.xlsx`);
  });

  it(
    'imports the decisions typed into the workbook, refuses ' +
      'what it cannot record, and a second import changes nothing',
    async () => {
      const costId = await idOf(found.costBreak.partner_reference);
      const missingId = await idOf(found.missing.partner_reference);
      const fixableId = await idOf(found.fixable.partner_reference);
      const typed = path.join(cwd, 'typed.xlsx');
      await typeDecisions(workbook, typed, {
        [costId]: { decision: 'claim', owner: 'ana', note: 'charged 9.00' },
        [missingId]: { decision: 'timing', expectedClearBy: new Date(Date.UTC(2099, 4, 15)) },
        [fixableId]: { decision: 'not-a-decision' },
      });

      const first = await pinrecon(['findings', 'import', typed], cwd);
      // A refused row fails the import (exit 1); the other rows are still recorded.
      expect(first.code, first.stderr).toBe(1);
      // --by left out: the OS user name.
      expect(first.stdout).toContain(`recorded 2 decision(s) for 2024-03 by ${userInfo().username} `);
      expect(first.stdout).toContain('0 unchanged; refused 1');
      expect(first.stdout).toMatch(new RegExp(`recorded  Amounts row \\d+: ${costId} \\(undecided\\) → claim`));
      expect(first.stdout).toMatch(
        new RegExp(`refused   Amounts row \\d+: ${fixableId}: "not-a-decision" is not a decision`),
      );

      const second = await inProcess(['findings', 'import', typed, '--by', 'controller'], cwd);
      expect(second.code).toBe(1); // the row typed "not-a-decision" is still refused
      expect(second.stdout).toContain('recorded 0 decision(s) for 2024-03 by controller');
      expect(second.stdout).toContain('2 unchanged');
      expect(second.stdout).toMatch(new RegExp(`unchanged Amounts row \\d+: ${costId} claim`));

      expect((await listByCli(pinrecon, '--undecided')).map((r) => r.finding_id)).toEqual([fixableId]);
      const bad = await inProcess(['findings', 'decide', fixableId, '--decision', 'maybe'], cwd);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain('--decision must be one of investigating, timing, claim');
      const decided = await pinrecon(
        ['findings', 'decide', fixableId, '--decision', 'fix_ledger', '--owner', 'rui', '--json'],
        cwd,
      );
      expect(decided.code, decided.stderr).toBe(0);
      expect(JSON.parse(decided.stdout)).toMatchObject({
        ok: true,
        source: 'cli',
        recorded: [{ findingId: fixableId, decision: 'fix_ledger', owner: 'rui' }],
      });

      // Two re-runs of reconcile: the decisions stay with their findings, and the next workbook shows them.
      for (let run = 0; run < 2; run++) await reconcileStep(config, { period, asOf });
      const after = await listByCli(inProcess);
      expect(after.map((r) => [r.finding_id, r.decision, r.state]).sort()).toEqual(
        [
          [costId, 'claim', 'decided'],
          [missingId, 'timing', 'pending'],
          [fixableId, 'fix_ledger', 'decided'],
        ].sort(),
      );
      await reportStep(config, { period });
      const shown = await readDecisionsWorkbook(workbook);
      expect(shown.rows.find((r) => r.findingId === missingId)).toMatchObject({
        decision: 'timing',
        expectedClearBy: '2099-05-15',
      });
      expect(shown.rows.find((r) => r.findingId === costId)).toMatchObject({
        decision: 'claim',
        owner: 'ana',
        note: 'charged 9.00',
      });

      const csv = await inProcess(['findings', 'list', '--period', period, '--format', 'csv'], cwd);
      expect(csv.stdout.split('\n')[0]).toBe(
        'finding_id,exception_type,partner_reference,transaction_id,currency_code,amount,exposure,difference,' +
          'differences,state,decision,owner,expected_clear_by,decision_note',
      );
    },
  );

  const soffice = hasSoffice();
  if (!soffice)
    console.warn('skipping the LibreOffice round trip of findings import: soffice is not installed on this machine');
  it.skipIf(!soffice)(
    'imports a workbook saved by LibreOffice (a real soffice round trip), and prints its finding sheets landscape',
    async () => {
      const missingId = await idOf(found.missing.partner_reference);
      const typed = path.join(cwd, 'for-libreoffice.xlsx');
      await typeDecisions(workbook, typed, {
        [missingId]: { decision: 'write_off', note: 'too small to chase', expectedClearBy: '2024-06-30' },
      });
      const saved = await convertWithSoffice(typed, path.join(cwd, 'libreoffice'), 'xlsx');
      expect(readFileSync(saved).subarray(0, 2).toString()).toBe('PK');

      const imported = await inProcess(['findings', 'import', saved, '--by', 'controller'], cwd);
      expect(imported.code, imported.stderr).toBe(0);
      // Only the row that changed is recorded; the decisions LibreOffice carried over unchanged are not.
      expect(imported.stdout).toContain('recorded 1 decision(s) for 2024-03 by controller');
      expect(imported.stdout).toMatch(new RegExp(`Missing row \\d+: ${missingId} timing → write_off by 2024-06-30`));
      expect(imported.stdout).toContain('2 unchanged');
      expect((await list()).find((r) => r.finding_id === missingId)).toMatchObject({ decision: 'write_off' });

      // The workbook printed: the Summary portrait, every finding sheet's page landscape (wider than high);
      // test/cli/workbook-print.test.ts checks the paper, the scale and the columns.
      const printable = path.join(cwd, 'print', 'workbook.xlsx');
      copyFileSync(workbook, path.join(cwd, 'workbook.xlsx'));
      const pages = readPdfPages(
        await convertWithSoffice(path.join(cwd, 'workbook.xlsx'), path.dirname(printable), 'pdf'),
      );
      const wide = (page: PdfPage) => page.mediaBox[2]! > page.mediaBox[3]!;
      expect(wide(pages[0]!)).toBe(false);
      // A finding sheet's page: its header row (the Finding ID stays on screen since issue 30 item 6).
      const findingPages = pages.filter(
        (page) => page.text.includes('Finding type') && page.text.includes('Decided by'),
      );
      expect(findingPages.length).toBeGreaterThan(0);
      for (const page of findingPages) expect(wide(page)).toBe(true);
    },
  );
  it(
    'refuses a row edited over a decision taken after the workbook was ' +
      'written; rows left as written are unchanged; --overwrite records it',
    async () => {
      const costId = await idOf(found.costBreak.partner_reference);
      const missingId = await idOf(found.missing.partner_reference);
      const fixableId = await idOf(found.fixable.partner_reference);
      await reportStep(config, { period });
      const written = path.join(cwd, 'written-before.xlsx');
      copyFileSync(workbook, written);
      // After the workbook was written, someone decides two findings on the command line (`findings decide`, here in
      // this process: the first case spawns it).
      for (const [id, decision] of [
        [costId, 'write_off'],
        [missingId, 'accepted'],
      ] as const) {
        // write_off and accepted need a note (issue 28).
        await decideStep(config, [id], { decision, note: 'reviewed', by: 'Rui Costa' });
      }
      const fixableBefore = (await list()).find((r) => r.finding_id === fixableId)!.decision;
      const nextDecision = fixableBefore === 'reverse' ? 'claim' : 'reverse';
      // The old workbook: the cost row edited (over Rui's newer decision), the fixable row edited, the missing row left
      // as written.
      const typed = path.join(cwd, 'stale.xlsx');
      await typeDecisions(written, typed, {
        [costId]: { decision: 'accepted', note: 'old view' },
        [fixableId]: { decision: nextDecision },
      });
      const saved = soffice ? await convertWithSoffice(typed, path.join(cwd, 'stale-libreoffice'), 'xlsx') : typed;

      const stale = await inProcess(['findings', 'import', saved, '--by', 'Ana Lima'], cwd);
      expect(stale.code).toBe(1);
      expect(stale.stdout).toContain('recorded 1 decision(s) for 2024-03 by Ana Lima');
      expect(stale.stdout).toContain('refused 1');
      expect(stale.stdout).toMatch(
        new RegExp(
          `refused   Amounts row \\d+: ${costId}: changed by Rui Costa at \\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2} ` +
            `[+-]\\d{2}:\\d{2} \\(${f.config.timezone}\\) ` +
            'after this workbook was written \\(now "write_off"\\): run `pinrecon report` for a fresh workbook, or ' +
            '--overwrite',
        ),
      );
      expect(stale.stdout).toMatch(
        new RegExp(
          `recorded  Amounts row \\d+: ${fixableId} ` + `${fixableBefore ?? '\\(undecided\\)'} → ${nextDecision}`,
        ),
      );
      expect(stale.stdout).toMatch(
        new RegExp(
          `unchanged Missing row \\d+: ${missingId} \\S+: left as written \\(\\S+\\); the finding is decided ` +
            `"accepted" since`,
        ),
      );
      const afterStale = new Map((await list()).map((r) => [r.finding_id, r.decision]));
      expect([afterStale.get(costId), afterStale.get(missingId), afterStale.get(fixableId)]).toEqual([
        'write_off',
        'accepted',
        nextDecision,
      ]);

      // --json lists every row with its outcome.
      const again = await inProcess(['findings', 'import', saved, '--by', 'Ana Lima', '--json'], cwd);
      expect(again.code).toBe(1);
      const document = JSON.parse(again.stdout) as {
        ok: boolean;
        rows: { findingId: string; outcome: string; sheet: string; row: number }[];
      };
      expect(document.ok).toBe(false);
      const outcomes = new Map(document.rows.map((r) => [r.findingId, r.outcome]));
      expect([outcomes.get(costId), outcomes.get(fixableId), outcomes.get(missingId)]).toEqual([
        'refused',
        'unchanged',
        'unchanged',
      ]);
      expect(document.rows.every((r) => typeof r.sheet === 'string' && r.row > 1)).toBe(true);

      const overwrite = await inProcess(['findings', 'import', saved, '--by', 'Ana Lima', '--overwrite'], cwd);
      expect(overwrite.code, overwrite.stdout + overwrite.stderr).toBe(0);
      expect(overwrite.stdout).toMatch(new RegExp(`recorded  Amounts row \\d+: ${costId} write_off → accepted`));
      expect((await list()).find((r) => r.finding_id === costId)).toMatchObject({ decision: 'accepted' });
    },
  );

  it(
    'decides in bulk by period and filters: a dry run says what it ' +
      'would decide, per currency; ids and --period exclude each other',
    async () => {
      const listed = (await list()) as (Listed & { exception_type: string; amount: string; currency_code: string })[];
      const costs = listed.filter((r) => r.exception_type === 'cost_mismatch');
      expect(costs.length).toBe(2);
      const total = costs.reduce((sum, r) => sum + Math.round(Number(r.amount) * 10_000), 0);
      const decisionsBefore = (await inProcess(['findings', 'history', '--period', period, '--format', 'json'], cwd))
        .stdout;

      const dry = await inProcess(
        [
          'findings',
          'decide',
          '--period',
          period,
          '--type',
          'cost_mismatch',
          '--decision',
          'claim',
          '--by',
          'Ana Lima',
          '--dry-run',
        ],
        cwd,
      );
      expect(dry.code, dry.stderr).toBe(0);
      expect(dry.stdout).toContain(`would decide 2 finding(s) of ${period}:`);
      expect(dry.stdout).toContain(`BRL: 2 finding(s), amount ${(total / 10_000).toFixed(4)}`);
      expect(dry.stdout).toContain('dry run: nothing recorded');
      expect((await inProcess(['findings', 'history', '--period', period, '--format', 'json'], cwd)).stdout).toBe(
        decisionsBefore,
      );

      // Only the smaller of the two cost breaks (|amount| at most the smaller one's).
      const smaller = costs.reduce((a, b) => (Math.abs(Number(a.amount)) <= Math.abs(Number(b.amount)) ? a : b));
      const limit = Math.abs(Number(smaller.amount)).toFixed(4);
      const bulk = await inProcess(
        [
          'findings',
          'decide',
          '--period',
          period,
          '--type',
          'cost_mismatch',
          '--max-amount',
          limit,
          '--decision',
          'investigating',
          '--owner',
          'ops',
          '--by',
          'Ana Lima',
        ],
        cwd,
      );
      expect(bulk.code, bulk.stderr).toBe(0);
      expect(bulk.stdout).toContain(`chose 1 finding(s) of ${period}:`);
      expect(bulk.stdout).toContain('recorded 1 decision(s) for 2024-03 by Ana Lima (source cli)');
      expect((await list()).find((r) => r.finding_id === smaller.finding_id)).toMatchObject({
        decision: 'investigating',
        owner: 'ops',
      });

      const both = await inProcess(
        ['findings', 'decide', smaller.finding_id, '--period', period, '--decision', 'claim'],
        cwd,
      );
      expect(both.code).toBe(2);
      expect(both.stderr).toContain('either by id or with --period');
      const filterAlone = await inProcess(
        ['findings', 'decide', smaller.finding_id, '--type', 'cost_mismatch', '--decision', 'claim'],
        cwd,
      );
      expect(filterAlone.code).toBe(2);
      expect(filterAlone.stderr).toContain('--type choose findings of a period');
    },
  );

  it('findings history says who decided what, when (with the zone) and from which source', async () => {
    const costId = await idOf(found.costBreak.partner_reference);
    const one = await pinrecon(['findings', 'history', costId], cwd);
    expect(one.code, one.stderr).toBe(0);
    expect(one.stdout).toContain('Rui Costa');
    expect(one.stdout).toContain(`(${f.config.timezone})`);

    const all = await inProcess(['findings', 'history', '--period', period, '--format', 'json'], cwd);
    expect(all.code, all.stderr).toBe(0);
    const rows = JSON.parse(all.stdout) as {
      chain_position: string;
      finding_id: string;
      decision: string;
      decided_by: string;
      decided_at: string;
      source: string;
    }[];
    expect(rows.map((r) => Number(r.chain_position))).toEqual(rows.map((_, i) => i + 1));
    const ofCost = rows.filter((r) => r.finding_id === costId);
    expect(ofCost.map((r) => [r.decision, r.decided_by, r.source.split(':')[0]])).toEqual([
      ['claim', userInfo().username, 'workbook'],
      ['write_off', 'Rui Costa', 'cli'],
      ['accepted', 'Ana Lima', 'workbook'],
    ]);
    for (const r of rows)
      expect(r.decided_at).toMatch(
        new RegExp(`^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2} [+-]\\d{2}:\\d{2} \\(${f.config.timezone}\\)$`),
      );

    const csv = await inProcess(['findings', 'history', '--period', period, '--format', 'csv'], cwd);
    expect(csv.stdout.split('\n')[0]).toBe(
      'period,chain_position,finding_id,exception_type,partner_reference,decision,note,owner,' +
        'expected_clear_by,decided_by,decided_at,source,superseded_at,row_sha256',
    );
    const neither = await inProcess(['findings', 'history'], cwd);
    expect(neither.code).toBe(2);
    const unknown = await inProcess(['findings', 'history', 'no-such-finding'], cwd);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('No finding no-such-finding');
  });
});
