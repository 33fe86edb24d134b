/**
 * `pinrecon demo`: the whole month-end job on the embedded default, with no configuration. Starts the
 * simulator and a local mail sink on free loopback ports, generates last month's sales and a ledger with
 * a believable mix of breaks, runs `run --email`, and says where everything went (all under one folder).
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Output } from '../../core/output.js';
import { configSchema, type Config } from '../../config/schema.js';
import { startMailSink } from '../../doubles/mail-sink/mail-sink.js';
import { generateLedger, type LedgerPlant } from '../../doubles/simulator/ledger-generator.js';
import { startSimulator } from '../../doubles/simulator/server.js';
import { addMonths, periodOf, periodStart, todayIn } from '../../core/calendar.js';
import { runMonthEnd, type RunSummary } from './month-end.js';
import { approveActions } from '../actions/approve.js';
import { executeActions } from '../actions/execute.js';
import { planActions } from '../actions/plan.js';
import { decideFindings } from '../decisions/findings.js';
import { resolveActor } from '../people/actor.js';
import { createIdentity, type CreatedIdentity } from '../people/identity.js';
import type { PersonRole } from '../../config/schema.js';
import { publishSnapshot, Warehouse } from '../../core/warehouse.js';
import { warehouseSettings } from '../../config/warehouse-settings.js';

/** What a demo run writes in its folder. */
const demoEntries = [
  'pinrecon.duckdb',
  'pinrecon.duckdb.wal',
  'pinrecon.snapshot.duckdb',
  'landing',
  'reports',
  'mail',
  'ledger.csv',
  'pinrecon.config.json',
  'identities',
];

/** The port the demo's config file points the API at: where `pinrecon simulate-api` serves by default. */
const demoApiPort = 8787;

export interface DemoOptions {
  /** Default: ./demo-output */
  outDir?: string;
  /** Sales a day in the simulated data set. Default 300. */
  salesPerDay?: number;
  seed?: number;
  timezone?: string;
}

export interface DemoSummary {
  period: string;
  asOf: string;
  outDir: string;
  database: string;
  snapshot: string;
  workbook: string;
  ledger: string;
  emails: string[];
  plant: Pick<LedgerPlant, 'lines' | 'byType'>;
  run: RunSummary;
  /** Per type and currency (issue 30: no total adds two currencies): amount (bridge effect) and exposure apart. */
  findings: {
    exception_type: string;
    currency_code: string | null;
    findings: number;
    amount: string | null;
    exposure: string | null;
  }[];
  /** The config the demo ran with, as a file the printed next steps use with --config (issue 30 item 8). */
  configFile: string;
  /** How to serve the same data set again, for `actions execute` after the demo (`pinrecon simulate-api`). */
  simulator: { seed: number; from: string; to: string; sales: number; malformedEvery: number; port: number };
  /** Issue 28: the two people of the demo and their private keys (the config's `people` holds their public keys). */
  identities: DemoIdentity[];
  /**
   * Issue 15: one reversal decided, planned, approved by a second person, executed and verified (none when nothing to
   * reverse).
   */
  reversal: DemoReversal | null;
  totals: {
    currency_code: string;
    provider_sales: number;
    provider_sales_total: string;
    provider_cost_total: string;
    ledger_cost_total: string;
  }[];
  seconds: number;
}

export interface DemoReversal {
  actionId: string;
  findingId: string;
  transactionId: string;
  partnerReference: string | null;
  decidedBy: string;
  approvedBy: string;
  outcome: string;
  detail: string;
}

const demoController = 'Demo Controller';
const demoApprover = 'Demo Approver';

/** A person of the demo: a preparer, and an approver who also signs the month off (issue 28). */
export interface DemoIdentity {
  name: string;
  roles: PersonRole[];
  /** The private key (PKCS#8 PEM, 0600): `--identity FILE` or PINRECON_IDENTITY. */
  file: string;
  fingerprint: string;
}

/** Makes the demo's two key pairs under `outDir/identities/` and the `people` entries naming them. */
function demoIdentities(outDir: string): { identities: DemoIdentity[]; people: CreatedIdentity['person'][] } {
  const dir = path.join(outDir, 'identities');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const made = [
    createIdentity({ name: demoController, out: path.join(dir, 'controller.pem'), roles: ['preparer'] }),
    createIdentity({ name: demoApprover, out: path.join(dir, 'approver.pem'), roles: ['approver', 'signer'] }),
  ];
  const identities = made.map((m) => ({
    name: m.name,
    roles: m.person.roles,
    file: m.privateFile,
    fingerprint: m.fingerprint,
  }));
  return { identities, people: made.map((m) => m.person) };
}

/**
 * Decide → plan → approve → execute on one refunded_not_reversed finding: the controller decides `reverse`
 * and plans it, a second person approves it, execute reverses the sale at the simulator and reads it back.
 */
async function actOnOneFinding(
  warehouse: Warehouse,
  config: Config,
  period: string,
  identities: DemoIdentity[],
  output: Output,
): Promise<DemoReversal | null> {
  const finding = await warehouse.one<{ finding_id: string }>(
    `SELECT finding_id FROM recon_exceptions
     WHERE period = $1 AND exception_type = 'refunded_not_reversed' AND transaction_id IS NOT NULL
     ORDER BY finding_id LIMIT 1`,
    [period],
  );
  if (!finding) return null;
  output.info(
    `demo: ${demoController} decides to reverse one refunded sale; ${demoApprover} approves; execute reverses it`,
  );
  const note = 'refunded to the customer: reverse at the provider';
  // Each act proven by its person's key and signed (issue 28), as the printed next steps do it.
  const [controller, approver] = identities;
  const as = (who: DemoIdentity, role: PersonRole) =>
    resolveActor(config, { identity: who.file, env: {} }, role, 'act');
  const preparer = as(controller!, 'preparer');
  await decideFindings(warehouse, [finding.finding_id], { decision: 'reverse', note, actor: preparer });
  const plan = await planActions(warehouse, config, { period, actor: preparer });
  const action = plan.proposed.find((p) => p.findingId === finding.finding_id && p.kind === 'reversal');
  if (!action) return null;
  const actor = as(approver!, 'approver');
  await approveActions(warehouse, config, { period, actionIds: [action.actionId], actor });
  const executed = await executeActions(warehouse, config, { period, by: demoController }, output);
  const done = executed.actions.find((a) => a.actionId === action.actionId)!;
  const referenceSql = `SELECT partner_reference FROM recon_actions WHERE action_id = $1`;
  const stored = await warehouse.one<{ partner_reference: string | null }>(referenceSql, [action.actionId]);
  return {
    actionId: action.actionId,
    findingId: finding.finding_id,
    transactionId: action.transactionId!,
    partnerReference: stored?.partner_reference ?? null,
    decidedBy: demoController,
    approvedBy: demoApprover,
    outcome: done.outcome,
    detail: done.detail,
  };
}

export async function runDemo(output: Output, options: DemoOptions = {}): Promise<DemoSummary> {
  const started = Date.now();
  const timezone = options.timezone ?? 'America/Sao_Paulo';
  const outDir = path.resolve(options.outDir ?? 'demo-output');
  const asOf = todayIn(timezone);
  const period = addMonths(periodOf(asOf), -1);
  // Start from nothing so every demo run tells the same story — removing only what a demo writes, in case
  // --out names a folder that holds other things too.
  mkdirSync(outDir, { recursive: true });
  for (const entry of demoEntries) rmSync(path.join(outDir, entry), { recursive: true, force: true });

  const identifier = 'demo-partner';
  const secret = randomBytes(18).toString('base64url');
  const from = periodStart(period);
  const days = Math.round((Date.parse(`${asOf}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000) + 1;
  output.info(`demo: starting the provider simulator (${days} days of sales from ${from}) and a local mail sink`);
  const dataset = { from, to: asOf, salesCount: days * (options.salesPerDay ?? 300), timezone, malformedEvery: 2_500 };
  const simulator = await startSimulator({ seed: options.seed ?? 7, identifier, secret, dataset });
  const sink = await startMailSink(path.join(outDir, 'mail'));
  try {
    // The settings the next steps need to give the same results: written as demo-output/pinrecon.config.json,
    // without the run's secret, simulator port or mail sink (issue 30: re-running reconcile without historyStart
    // turned proven findings unproven, and reports went outside the folder).
    const { identities, people } = demoIdentities(outDir);
    const fileConfig = {
      timezone,
      // Two people proven by keys (issue 28): every act names its person by --identity and is signed.
      people,
      // Approvals above a limit, or in a currency without one, need a listed approver (issue 34: fail closed).
      actions: { approvalLimit: { BRL: 1000, USD: 1000 }, approvers: [demoApprover] },
      database: path.join(outDir, 'pinrecon.duckdb'),
      api: { baseUrl: `http://127.0.0.1:${demoApiPort}`, identifier },
      // The simulator holds no sale created before the period: the windows prove absence, with no look-ups.
      extract: { landingDir: path.join(outDir, 'landing'), historyStart: from },
      ledger: { path: path.join(outDir, 'ledger.csv') },
      // A claim names whom it is addressed to (issue 30: unset, the demo's claim said "Provider 127.0.0.1:8787").
      reports: { outDir: path.join(outDir, 'reports'), providerName: 'Demo provider (the simulator)' },
      // A sales-price difference posts to accounts of its own (issue 30), so a journal export works as printed.
      journal: {
        accounts: { default: { debit: '6100', credit: '2100' }, price_mismatch: { debit: '4100', credit: '1200' } },
      },
    };
    const configFile = path.join(outDir, 'pinrecon.config.json');
    writeFileSync(configFile, `${JSON.stringify(fileConfig, null, 2)}\n`, { mode: 0o600 });
    const config: Config = configSchema.parse({
      ...fileConfig,
      api: { ...fileConfig.api, baseUrl: simulator.url, secret },
      email: { smtpUrl: sink.url, from: 'pinrecon-demo@example.com', to: ['finance@example.com'] },
    });
    output.info(`demo: generating the partner ledger for ${period} with planted breaks`);
    const plant = await generateLedger(simulator.dataset, {
      period,
      asOf,
      file: config.ledger.path,
      reconciliation: config.reconciliation,
      seed: options.seed ?? 7,
      // misspelled references and decoys, so the demo's workbook shows suggested matches (issue 29)
      nearMisses: true,
    });

    const warehouse = await Warehouse.open(config.database, warehouseSettings(config));
    let run: RunSummary;
    let findings: DemoSummary['findings'];
    let totals: DemoSummary['totals'];
    let snapshot: string;
    let reversal: DemoReversal | null;
    try {
      run = await runMonthEnd(warehouse, config, { period, asOf, ledger: config.ledger.path, email: true }, output);
      reversal = await actOnOneFinding(warehouse, config, period, identities, output);
      findings = await warehouse.all(
        `select exception_type, currency_code, count(*)::INTEGER as findings, sum(amount)::VARCHAR as amount,
                sum(exposure)::VARCHAR as exposure
         from recon_exceptions where period = $1 group by all order by exception_type, currency_code nulls last`,
        [period],
      );
      totals = await warehouse.all(
        `select currency_code, provider_billable_sales::INTEGER as provider_sales,
                provider_sales_total::VARCHAR as provider_sales_total,
                provider_cost_total::VARCHAR as provider_cost_total, ledger_cost_total::VARCHAR as ledger_cost_total
         from recon_summary where period = $1 order by currency_code`,
        [period],
      );
      snapshot = await publishSnapshot(warehouse);
    } finally {
      warehouse.close();
    }
    return {
      period,
      asOf,
      outDir,
      database: config.database,
      snapshot,
      workbook: run.report.workbook,
      ledger: config.ledger.path,
      emails: [...sink.received],
      plant: { lines: plant.lines, byType: plant.byType },
      run,
      findings,
      configFile,
      simulator: {
        seed: options.seed ?? 7,
        from,
        to: asOf,
        sales: dataset.salesCount,
        malformedEvery: dataset.malformedEvery,
        port: demoApiPort,
      },
      identities,
      reversal,
      totals,
      seconds: (Date.now() - started) / 1000,
    };
  } finally {
    await sink.close();
    await simulator.close();
  }
}
