/**
 * Closing a month through the CLI, against the simulator over HTTP (the built CLI spawned once per command, for
 * its wiring; its other cases run in this process, issue 27): a period not (completely)
 * extracted is refused by `reconcile` and `close` with the `pinrecon extract` command that fills it, and
 * stored as incomplete with --allow-incomplete (no individual lookups, an [INCOMPLETE] email, a red first
 * line); once complete, `close` refuses undecided findings, then signs off with a manifest; the provider
 * reverses two sales; `run` finds the period changed since sign-off with exactly the new and cleared
 * findings and their amount delta, the signed rows untouched; `reopen` keeps the sign-off in the history.
 * A signed period refuses decisions and imports until reopened; `verify` proves the decision chain, the
 * sign-off's content hash and the files behind it, and names a landing file or a decision row altered.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import ExcelJS from 'exceljs';
import { simpleParser } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configSchema, type Config } from '../../config/schema.js';
import { Warehouse } from '../../core/warehouse.js';
import { signedContentSha256 } from '../../pipelines/close/close.js';
import { PartnerApiClient } from '../../sources/partner-api/client.js';
import { generateLedger } from '../../doubles/simulator/ledger-generator.js';
import { startSimulator, type RunningSimulator } from '../../doubles/simulator/server.js';
import { runCli, unusedPort } from '../support/cli.js';
import { runCommand } from '../support/cli-in-process.js';
import { extractStep, ledgerImportStep, reconcileStep, reopenStep, reportStep, runStep } from '../support/commands.js';

const period = '2026-03';
const asOf = '2026-04-10';
const identifier = 'close-cli';
const secret = 'close-cli-secret';
/** Each step runs several commands, some spawned; a busy machine may take minutes. */
const stepTimeout = 300_000;

describe('closing a month from the command line', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'pinrecon-close-'));
  let simulator: RunningSimulator;
  /**
   * What pinrecon.config.json says, its paths resolved: setup steps run in this process (test/support/commands.ts),
   * and the CLI is spawned for the commands a case is about (issue 27).
   */
  let config: Config;
  const env = { CI: 'true', PINRECON_SMTP_URL: '' };
  /** The built CLI, spawned: one case per command, for its exit and console from a real process. */
  const pinrecon = (...args: string[]) => runCli([...args, '--config', 'pinrecon.config.json'], { cwd: dir, env });
  /** The same command in this process (test/support/cli-in-process.ts): its other cases. */
  const inProcess = (...args: string[]) => runCommand([...args, '--config', 'pinrecon.config.json'], { cwd: dir, env });
  const query = async <T extends Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<T[]> => {
    const warehouse = await Warehouse.open(path.join(dir, 'pinrecon.duckdb'), { readOnly: true });
    try {
      return await warehouse.all<T>(sql, params as never);
    } finally {
      warehouse.close();
    }
  };
  const summaryFirstCell = async (): Promise<string> => {
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.readFile(path.join(dir, 'reports', `pinrecon-${period}.xlsx`));
    return String(workbook.getWorksheet('Summary')!.getCell('A1').value);
  };
  const email = async () => simpleParser(readFileSync(path.join(dir, 'reports', `pinrecon-${period}.eml`)));
  /** Every text cell of the Summary, and the page footer of every sheet. */
  const summaryTexts = async (): Promise<string[]> => {
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.readFile(path.join(dir, 'reports', `pinrecon-${period}.xlsx`));
    const texts: string[] = [];
    // A merged cell's text once (the reader repeats it in every cell of the merge).
    workbook.getWorksheet('Summary')!.eachRow((row) =>
      row.eachCell((cell) => {
        if (cell.master.address === cell.address && typeof cell.value === 'string') texts.push(cell.value);
      }),
    );
    return texts;
  };
  const footers = async (): Promise<string[]> => {
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.readFile(path.join(dir, 'reports', `pinrecon-${period}.xlsx`));
    return workbook.worksheets.map((sheet) => sheet.headerFooter.oddFooter ?? '');
  };

  beforeAll(async () => {
    simulator = await startSimulator({
      seed: 31,
      identifier,
      secret,
      dataset: { from: '2026-03-01', to: asOf, salesCount: 600, timezone: 'America/Sao_Paulo' },
    });
    const fileConfig = {
      timezone: 'America/Sao_Paulo',
      database: 'pinrecon.duckdb',
      api: { baseUrl: simulator.url, identifier, secret, maxRequestsPerSecond: 40, maxRetries: 0 },
      reports: { outDir: 'reports' },
      email: { smtpUrl: `smtp://127.0.0.1:${await unusedPort()}`, retries: 0, to: ['finance@example.com'] },
    };
    writeFileSync(path.join(dir, 'pinrecon.config.json'), JSON.stringify(fileConfig));
    // The same config with its paths resolved in `dir`, for the setup steps run in this process.
    config = configSchema.parse({
      ...fileConfig,
      database: path.join(dir, 'pinrecon.duckdb'),
      reports: { outDir: path.join(dir, 'reports') },
    });
    await generateLedger(simulator.dataset, {
      period,
      asOf,
      file: path.join(dir, 'march.csv'),
      reconciliation: configSchema.parse({}).reconciliation,
      seed: 5,
      salesPerBreak: 10,
    });
    await ledgerImportStep(config, path.join(dir, 'march.csv'));
  });

  afterAll(async () => {
    await simulator?.close();
    rmSync(dir, { recursive: true, force: true });
  }, stepTimeout);

  it(
    'refuses to reconcile a month never extracted, naming the days and the command that fills them',
    async () => {
      const result = await pinrecon('reconcile', '--period', period, '--as-of', asOf);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`The period ${period} is not completely extracted, so it is not reconciled`);
      expect(result.stderr).toContain('missing by paid date: 2026-03-01..2026-03-31 (not extracted)');
      expect(result.stderr).toContain('missing by created date: 2026-03-01..2026-03-31 (not extracted)');
      expect(result.stderr).toContain('pinrecon extract --from 2026-03-01 --to 2026-03-31');
      expect(result.stderr).toContain('--allow-incomplete');
      expect(await query(`SELECT * FROM recon_summary WHERE period = $1`, [period])).toEqual([]);
    },
    stepTimeout,
  );

  it(
    'refuses a month with days missing and a failed window, and close refuses it too',
    async () => {
      // The extracts are setup, in this process: the subject is what reconcile and close say of them.
      await extractStep(config, { from: '2026-03-01', to: '2026-03-10', by: 'both' });
      simulator.setFaults({ error500Rate: 1 });
      const failed = await extractStep(config, { from: '2026-03-11', to: '2026-03-31', by: 'both' }).catch(
        (error: unknown) => error,
      );
      simulator.setFaults({});
      expect(failed).toBeInstanceOf(Error);

      const result = await inProcess('reconcile', '--period', period, '--as-of', asOf);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('missing by paid date: 2026-03-11..2026-03-31 (not extracted)');
      expect(result.stderr).toMatch(/window 2026-03-11\.\.2026-03-31 \(by paid\) failed in extract run \S+/);
      expect(result.stderr).toMatch(/window 2026-03-11\.\.2026-03-31 \(by created\) failed in extract run \S+/);
      expect(result.stderr).toContain('pinrecon extract --from 2026-03-11 --to 2026-03-31\n');

      const close = await inProcess('close', '--period', period, '--by', 'Ana Lima', '--allow-undecided');
      expect(close.code).toBe(1);
      expect(close.stderr).toContain(`The period ${period} is not completely extracted, so it cannot be signed off`);
      expect(close.stderr).toContain('pinrecon extract --from 2026-03-11 --to 2026-03-31');
      expect(await query(`SELECT * FROM period_signoffs`)).toEqual([]);
    },
    stepTimeout,
  );

  it(
    '--allow-incomplete stores the findings as incomplete without looking references up; the report says INCOMPLETE',
    async () => {
      const lookupsBefore = simulator.stats().byEndpoint.salesByPartnerReference ?? 0;
      const result = await inProcess('reconcile', '--period', period, '--as-of', asOf, '--allow-incomplete');
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('verdict: INCOMPLETE');
      expect(result.stdout).toContain('individual lookups: skipped (the period is not completely extracted');
      expect(simulator.stats().byEndpoint.salesByPartnerReference ?? 0).toBe(lookupsBefore);
      const verdicts = await query<{ verdict: string; reasons: string }>(
        `SELECT DISTINCT verdict, incomplete_reasons AS reasons FROM recon_summary WHERE period = $1`,
        [period],
      );
      expect(verdicts).toHaveLength(1);
      expect(verdicts[0]!.verdict).toBe('incomplete');
      expect(JSON.parse(verdicts[0]!.reasons)).toContain(
        'missing by paid date: 2026-03-11..2026-03-31 (not extracted)',
      );
      expect(
        Number(
          (await query<{ n: bigint }>(`SELECT count(*) AS n FROM recon_exceptions WHERE period = $1`, [period]))[0]!.n,
        ),
      ).toBeGreaterThan(0);

      expect((await pinrecon('report', '--period', period, '--email', '--dry-run')).code).toBe(0);
      expect(await summaryFirstCell()).toMatch(/^INCOMPLETE: /);
      const mail = await email();
      expect(mail.subject).toMatch(/^\[INCOMPLETE\] pinrecon 2026-03: /);
      expect(mail.text).toContain('To complete it: pinrecon extract --from 2026-03-11 --to 2026-03-31');
    },
    stepTimeout,
  );

  it(
    'once complete, close refuses undecided findings, then signs off with a manifest of what produced the figures',
    async () => {
      // `run` completes the month as setup, in this process (a later case spawns it).
      await runStep(config, { period, asOf, ledger: path.join(dir, 'march.csv') });
      expect(
        await query(`SELECT DISTINCT verdict, signoff_status FROM recon_summary WHERE period = $1`, [period]),
      ).toEqual([{ verdict: 'reconciled_with_findings', signoff_status: 'unsigned' }]);
      const findings = Number(
        (await query<{ n: bigint }>(`SELECT count(*) AS n FROM recon_exceptions WHERE period = $1`, [period]))[0]!.n,
      );

      const undecided = await inProcess('close', '--period', period, '--by', 'Ana Lima');
      expect(undecided.code).toBe(1);
      expect(undecided.stderr).toContain(`has ${findings} of ${findings} findings without a decision`);
      expect(undecided.stderr).toContain('--allow-undecided');

      const closed = await pinrecon(
        'close',
        '--period',
        period,
        '--by',
        'Ana Lima',
        '--note',
        'March close',
        '--allow-undecided',
        '--json',
      );
      expect(closed.code).toBe(0);
      const signoff = JSON.parse(closed.stdout) as {
        signoffId: string;
        findings: number;
        undecided: number;
        contentSha256: string;
        manifest: {
          pinreconVersion: string;
          sqlSha256: string;
          landingFiles: { path: string; sha256: string }[];
          ledgerFiles: { path: string; sha256: string; importedSha256: string }[];
        };
      };
      expect(signoff).toMatchObject({ findings, undecided: findings });
      expect(signoff.manifest.pinreconVersion).toMatch(/^\d+\.\d+\.\d+/);
      expect(signoff.manifest.sqlSha256).toMatch(/^[0-9a-f]{64}$/);
      expect(signoff.manifest.landingFiles.length).toBeGreaterThanOrEqual(2);
      for (const file of signoff.manifest.landingFiles) expect(file.sha256).toBe(sha256(path.resolve(dir, file.path)));
      expect(signoff.manifest.ledgerFiles).toEqual([
        {
          path: path.join(dir, 'march.csv'),
          sha256: sha256(path.join(dir, 'march.csv')),
          importedSha256: sha256(path.join(dir, 'march.csv')),
        },
      ]);
      expect(
        await query(`SELECT period, signed_by, note, findings::INTEGER AS findings, reopened_at FROM period_signoffs`),
      ).toEqual([{ period, signed_by: 'Ana Lima', note: 'March close', findings, reopened_at: null }]);
      expect(
        Number(
          (
            await query<{ n: bigint }>(`SELECT count(*) AS n FROM recon_exceptions_signed WHERE signoff_id = $1`, [
              signoff.signoffId,
            ])
          )[0]!.n,
        ),
      ).toBe(findings);

      const again = await inProcess('close', '--period', period, '--by', 'Bo', '--allow-undecided');
      expect(again.code).toBe(1);
      expect(again.stderr).toContain(`is already signed off by Ana Lima`);

      await reportStep(config, { period });
      expect(await summaryFirstCell()).toMatch(
        /^Signed off by Ana Lima at \d{4}-\d{2}-\d{2} \d{2}:\d{2} -03:00 \(America\/Sao_Paulo\)$/,
      );
    },
    stepTimeout,
  );

  it(
    'a signed period refuses decisions and imports (reopen first); verify proves it, and names a landing file that ' +
      'changed',
    async () => {
      const [finding] = await query<{ finding_id: string }>(
        `SELECT finding_id FROM recon_exceptions WHERE period = $1 ORDER BY finding_id LIMIT 1`,
        [period],
      );
      const signedOff = new RegExp(
        `changed nothing: ${period} is signed off by Ana Lima at \\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2} -03:00 ` +
          `\\(America/Sao_Paulo\\): ` +
          `run \`pinrecon reopen --period ${period} --by NAME --reason TEXT\` first`,
      );
      const decide = await inProcess(
        ...['findings', 'decide', finding!.finding_id, '--decision', 'accepted', '--note', 'explained', '--by', 'Bo'],
      );
      expect(decide.code).toBe(1);
      expect(decide.stderr).toMatch(signedOff);
      const bulk = await inProcess(
        'findings',
        'decide',
        '--period',
        period,
        '--undecided',
        '--decision',
        'investigating',
        '--by',
        'Bo',
      );
      expect(bulk.code).toBe(1);
      expect(bulk.stderr).toMatch(signedOff);
      const imported = await pinrecon(
        'findings',
        'import',
        path.join('reports', `pinrecon-${period}.xlsx`),
        '--by',
        'Bo',
      );
      expect(imported.code).toBe(1);
      expect(imported.stderr).toMatch(signedOff);
      expect(await query(`SELECT count(*)::INTEGER AS n FROM recon_decisions`)).toEqual([{ n: 0 }]);

      const verified = await pinrecon('verify', '--period', period);
      expect(verified.code, verified.stderr).toBe(0);
      expect(verified.stdout).toMatch(
        new RegExp(`^verified ${period}: 0 decision\\(s\\) in the chain, 1 sign-off\\(s\\), [1-9]\\d* file\\(s\\)`),
      );

      // A landing file changed after the sign-off: verify names it.
      const [signoff] = await query<{ manifest: string }>(`SELECT manifest FROM period_signoffs`);
      const landing = (JSON.parse(signoff!.manifest) as { landingFiles: { path: string }[] }).landingFiles[0]!.path;
      const file = path.resolve(dir, landing);
      const original = readFileSync(file);
      writeFileSync(file, Buffer.concat([original, Buffer.from('tampered')]));
      try {
        const broken = await inProcess('verify', '--period', period, '--json');
        expect(broken.code).toBe(1);
        expect(broken.stderr).toContain(`${period} does not verify: ${landing}: its sha256 is ${sha256(file)}`);
        const report = JSON.parse(broken.stdout) as { ok: boolean; mismatches: { kind: string; subject: string }[] };
        expect(report.ok).toBe(false);
        expect(report.mismatches).toEqual([expect.objectContaining({ kind: 'file', subject: landing })]);
      } finally {
        writeFileSync(file, original);
      }
      expect((await inProcess('verify', '--period', period)).code).toBe(0);
    },
    stepTimeout,
  );

  it(
    'after the provider reverses two sales, run finds the period changed since sign-off, exactly, and keeps the ' +
      'signed rows',
    async () => {
      const [signoff] = await query<{ signoff_id: string; content_sha256: string }>(
        `SELECT signoff_id, content_sha256 FROM period_signoffs`,
      );
      // A: a matched sale of the period without any finding; B: a sale whose only finding is missing_in_ledger.
      const [a] = await query<{ transaction_id: bigint; partner_reference: string }>(
        `SELECT s.transaction_id, trim(s.partner_reference) AS partner_reference FROM sales s
       JOIN ledger l ON trim(l.partner_reference) = trim(s.partner_reference) AND l.order_status = 'paid'
       WHERE s.status = 'Redeemed by Client' AND s.transaction_at >= '2026-03-05 00:00:00-03'
         AND s.transaction_at < '2026-03-25 00:00:00-03'
         AND trim(s.partner_reference) NOT IN
           (SELECT partner_reference FROM recon_exceptions WHERE partner_reference IS NOT NULL)
         AND (SELECT count(*) FROM sales o WHERE trim(o.partner_reference) = trim(s.partner_reference)) = 1
         AND (SELECT count(*) FROM ledger o WHERE trim(o.partner_reference) = trim(s.partner_reference)) = 1
       ORDER BY s.transaction_id LIMIT 1`,
      );
      const [b] = await query<{ transaction_id: bigint; partner_reference: string; finding_id: string }>(
        `SELECT transaction_id, partner_reference, finding_id FROM recon_exceptions e
       WHERE period = $1 AND exception_type = 'missing_in_ledger' AND status_class <> 'canceled'
         AND (SELECT count(*) FROM recon_exceptions o WHERE o.partner_reference = e.partner_reference) = 1
       ORDER BY transaction_id LIMIT 1`,
        [period],
      );
      expect(a && b).toBeTruthy();
      const client = new PartnerApiClient(
        configSchema.parse({ api: { baseUrl: simulator.url, identifier, secret } }).api,
      );
      try {
        await client.reverseByTransactionId(Number(a!.transaction_id));
        await client.reverseByTransactionId(Number(b!.transaction_id));
      } finally {
        client.close();
      }

      const run = await pinrecon('run', '--period', period, '--as-of', asOf, '--ledger', 'march.csv');
      expect(run.code).toBe(0);
      expect(
        await query(`SELECT DISTINCT signoff_status, signoff_id FROM recon_summary WHERE period = $1`, [period]),
      ).toEqual([{ signoff_status: 'changed_since_signoff', signoff_id: signoff!.signoff_id }]);
      const changes = await query<{ change: string; exception_type: string; partner_reference: string }>(
        `SELECT change, exception_type, partner_reference FROM recon_signoff_changes WHERE period = $1 ORDER BY ` +
          `change, exception_type`,
        [period],
      );
      expect(changes).toEqual([
        { change: 'cleared', exception_type: 'missing_in_ledger', partner_reference: b!.partner_reference },
        { change: 'new', exception_type: 'canceled_but_booked', partner_reference: a!.partner_reference },
      ]);
      // The delta per currency is what the findings add up to now minus what they added up to as signed.
      const deltas = await query<{ currency_code: string; delta: string; expected: string }>(
        `SELECT s.currency_code, s.signoff_amount_delta::VARCHAR AS delta,
              ((SELECT coalesce(sum(amount), 0) FROM recon_exceptions e WHERE e.period = s.period
                 AND e.currency_code = s.currency_code)
               - (SELECT coalesce(sum(amount), 0) FROM recon_exceptions_signed x WHERE x.signoff_id = s.signoff_id
                 AND x.currency_code = s.currency_code))::DECIMAL(18,4)::VARCHAR AS expected
       FROM recon_summary s WHERE s.period = $1 ORDER BY 1`,
        [period],
      );
      for (const d of deltas) expect(d.delta).toBe(d.expected);
      expect(deltas.some((d) => Number(d.delta) !== 0)).toBe(true);

      // The signed rows are exactly as signed.
      const warehouse = await Warehouse.open(path.join(dir, 'pinrecon.duckdb'), { readOnly: true });
      try {
        expect(await signedContentSha256(warehouse, signoff!.signoff_id)).toBe(signoff!.content_sha256);
      } finally {
        warehouse.close();
      }
      expect(
        await query(`SELECT exception_type FROM recon_exceptions_signed WHERE finding_id = $1`, [b!.finding_id]),
      ).toEqual([{ exception_type: 'missing_in_ledger' }]);

      await reportStep(config, { period, email: true, dryRun: true });
      const mail = await email();
      expect(mail.subject).toMatch(
        new RegExp(
          / — changed since sign-off by Ana Lima at [\d-]+ [\d:]+ -03:00 \(America\/Sao_Paulo\): /.source +
            /1 new, 1 cleared, 0 changed; amount delta /.source,
        ),
      );
      expect(mail.subject?.startsWith('[INCOMPLETE]')).toBe(false);
      // Said once, in the band: not again on the next line (issue 14).
      expect(mail.text!.match(/1 new, 1 cleared, 0 changed/g)).toHaveLength(1);
      expect(mail.text).toMatch(
        new RegExp(
          /CHANGED SINCE SIGN-OFF by Ana Lima at [\d-]+ [\d:]+ -03:00 \(America\/Sao_Paulo\): 1 /.source +
            /new, 1 cleared, 0 changed/.source,
        ),
      );
      expect(await summaryFirstCell()).toMatch(
        /^CHANGED SINCE SIGN-OFF by Ana Lima at .+: 1 new, 1 cleared, 0 changed/,
      );
      expect((await summaryTexts()).filter((text) => text.includes('1 new, 1 cleared, 0 changed'))).toHaveLength(1);
      const workbook = new ExcelJS.Workbook();
      await workbook.xlsx.readFile(path.join(dir, 'reports', `pinrecon-${period}.xlsx`));
      expect(workbook.getWorksheet('Changed since sign-off')!.actualRowCount).toBe(3);
    },
    stepTimeout,
  );

  it(
    'reopen keeps the sign-off in the history; the period is unsigned again',
    async () => {
      const reopened = await pinrecon('reopen', '--period', period, '--by', 'Bo', '--reason', 'provider reversals');
      expect(reopened.code).toBe(0);
      expect(
        await query(
          `SELECT signed_by, reopened_by, reopen_reason, reopened_at IS NOT NULL AS reopened FROM period_signoffs`,
        ),
      ).toEqual([{ signed_by: 'Ana Lima', reopened_by: 'Bo', reopen_reason: 'provider reversals', reopened: true }]);
      const reconciled = await inProcess('reconcile', '--period', period, '--as-of', asOf);
      expect(reconciled.code).toBe(0);
      expect(await query(`SELECT DISTINCT signoff_status FROM recon_summary WHERE period = $1`, [period])).toEqual([
        { signoff_status: 'unsigned' },
      ]);
      // Unsigned in the table's vocabulary; to a person, reopened — by whom, when, in which zone, whose sign-off.
      expect(reconciled.stdout).toMatch(
        new RegExp(
          /sign-off: reopened by Bo at [\d-]+ [\d:]+ -03:00 \(America\/Sao_Paulo\) \(signed off /.source +
            /by Ana Lima at .+\): provider reversals\n/.source,
        ),
      );
      const twice = await inProcess('reopen', '--period', period, '--by', 'Bo', '--reason', 'again');
      expect(twice.code).toBe(1);
      expect(twice.stderr).toContain(`The period ${period} is not signed off`);
    },
    stepTimeout,
  );
  it(
    'after reopen, decisions are recorded and chained; close holds the chain head; a decision altered by SQL fails ' +
      'verify and shows as changed',
    async () => {
      const findings = Number(
        (await query<{ n: bigint }>(`SELECT count(*) AS n FROM recon_exceptions WHERE period = $1`, [period]))[0]!.n,
      );
      const bulk = await pinrecon(
        'findings',
        'decide',
        '--period',
        period,
        '--undecided',
        '--decision',
        'investigating',
        '--by',
        'Bo',
        '--json',
      );
      expect(bulk.code, bulk.stderr).toBe(0);
      expect((JSON.parse(bulk.stdout) as { recorded: unknown[] }).recorded).toHaveLength(findings);
      // Every finding is investigating: signed only with --allow-open (issue 28), which lists them.
      const closed = await inProcess('close', '--period', period, '--by', 'Ana Lima', '--allow-open', '--json');
      expect(closed.code, closed.stderr).toBe(0);
      const signoff = JSON.parse(closed.stdout) as {
        signoffId: string;
        undecided: number;
        manifest: { decisionChainHead: { position: number; sha256: string } };
      };
      expect(signoff.undecided).toBe(0);
      const [head] = await query<{ position: number; sha256: string }>(
        `SELECT chain_position::INTEGER AS position, row_sha256 AS sha256 FROM recon_decisions WHERE period = $1 ` +
          `ORDER BY chain_position DESC LIMIT 1`,
        [period],
      );
      expect(signoff.manifest.decisionChainHead).toEqual({ position: findings, sha256: head!.sha256 });
      const verified = await inProcess('verify', '--period', period);
      expect(verified.code, verified.stderr).toBe(0);
      expect(verified.stdout).toContain(
        `verified ${period}: ${findings} decision(s) in the chain ` +
          `(head ${findings}: ${head!.sha256.slice(0, 16)}…), ` +
          `2 sign-off(s)`,
      );

      // Someone rewrites a signed decision in the database, behind pinrecon's back.
      const [victim] = await query<{ finding_id: string; position: number }>(
        `SELECT finding_id, chain_position::INTEGER AS position FROM recon_decisions WHERE period = $1 ORDER BY ` +
          `chain_position LIMIT 1`,
        [period],
      );
      const warehouse = await Warehouse.open(path.join(dir, 'pinrecon.duckdb'));
      try {
        await warehouse.run(
          `UPDATE recon_decisions SET decision = 'write_off' WHERE period = $1 AND chain_position = $2`,
          [period, victim!.position],
        );
      } finally {
        warehouse.close();
      }
      const broken = await inProcess('verify', '--period', period);
      expect(broken.code).toBe(1);
      expect(broken.stderr).toContain(
        `${period} does not verify: recon_decisions row ${victim!.position} of ${period}: finding ` +
          `${victim!.finding_id}, write_off by Bo: ` +
          'its content does not hash to its row_sha256',
      );
      // The signed-vs-current comparison sees the decision changed since the sign-off.
      await reconcileStep(config, { period, asOf });
      expect(await query(`SELECT DISTINCT signoff_status FROM recon_summary WHERE period = $1`, [period])).toEqual([
        { signoff_status: 'changed_since_signoff' },
      ]);
      expect(
        await query(
          `SELECT finding_id, change, signed_decision, current_decision FROM recon_signoff_changes WHERE period = $1`,
          [period],
        ),
      ).toEqual([
        {
          finding_id: victim!.finding_id,
          change: 'changed',
          signed_decision: 'investigating',
          current_decision: 'write_off',
        },
      ]);
    },
    stepTimeout,
  );

  it(
    'after reopen → close → reconcile, subject, body, Summary and footer say one sign-off state, ' +
      'every time with its zone',
    async () => {
      const zoned = '\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2} -03:00 \\(America/Sao_Paulo\\)';
      /** The report's subject, body, Summary and footers, which must all say `state`. */
      const reportSays = async (state: RegExp, footerState = state) => {
        // The report in this process (an earlier case spawns it): what it printed is its console.
        const report = await reportStep(config, { period, email: true, dryRun: true });
        const mail = await email();
        expect(mail.subject).toMatch(new RegExp(` — ${state.source}$`));
        const body = mail.text!;
        expect(body.match(new RegExp(state.source, 'gi'))).toHaveLength(1);
        expect((await summaryTexts()).filter((text) => new RegExp(state.source, 'i').test(text))).toHaveLength(1);
        for (const footer of await footers())
          expect(footer).toMatch(new RegExp(`verdict reconciled_with_findings · ${footerState.source}`));
        for (const other of ['changed_since_signoff', 'changed since sign-off', 'Sign-off: unsigned'])
          expect(body).not.toContain(other);
        return { report, body };
      };

      // The previous step signed it again: reopen it, as the controller would after the provider's reversals.
      await reopenStep(config, { period, by: 'Bo', reason: 'provider reversals' });
      // Reopened (and reconciled since): the state names who reopened it and whose sign-off it was.
      const reopened = await reportSays(
        new RegExp(`reopened by Bo at ${zoned} \\(signed off by Ana Lima at ${zoned}\\): provider reversals`),
        new RegExp(`reopened by Bo at ${zoned}`),
      );
      expect(reopened.report.console).toMatch(new RegExp(`${period} reopened by Bo at ${zoned}`));

      // Signed again: close prints the time with its zone, and every reader says the same words and time.
      const closed = await inProcess(
        'close',
        '--period',
        period,
        '--by',
        'Cy Tan',
        '--allow-undecided',
        '--allow-open',
      );
      expect(closed.code, closed.stderr).toBe(0);
      const signedAt = new RegExp(`signed off by Cy Tan at (${zoned})`).exec(closed.stdout)?.[1];
      expect(signedAt, closed.stdout).toBeTruthy();
      const signed = new RegExp(`signed off by Cy Tan at ${signedAt!.replace(/[()]/g, '\\$&')}`);
      await reportSays(signed);
      expect(await summaryFirstCell()).toMatch(new RegExp(`^S${signed.source.slice(1)}$`));

      // reconcile compares itself with the new sign-off (nothing changed) and prints the same time and zone.
      const reconciled = await inProcess('reconcile', '--period', period, '--as-of', asOf);
      expect(reconciled.code, reconciled.stderr).toBe(0);
      expect(reconciled.stdout).toContain(`sign-off: signed off by Cy Tan at ${signedAt}\n`);
      const again = await reportSays(signed);
      expect(again.report.console).toContain(`${period} signed off by Cy Tan at ${signedAt}`);
    },
    stepTimeout,
  );
});

function sha256(file: string): string {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}
