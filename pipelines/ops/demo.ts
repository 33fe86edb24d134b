/**
 * `pinrecon demo`: the whole month-end job on the embedded default, with no configuration. Starts the
 * simulator and a local mail sink on free loopback ports, generates last month's sales and a ledger with
 * a believable mix of breaks, runs `run --email`, and says where everything went (all under one folder).
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
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
];

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
  findings: { exception_type: string; findings: number; amount: string | null }[];
  /** Issue 15: one reversal decided, planned, approved by a second person, executed and verified (none when nothing to reverse). */
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

/**
 * Decide → plan → approve → execute on one refunded_not_reversed finding: the controller decides `reverse`
 * and plans it, a second person approves it, execute reverses the sale at the simulator and reads it back.
 */
async function actOnOneFinding(
  warehouse: Warehouse,
  config: Config,
  period: string,
  output: Output,
): Promise<DemoReversal | null> {
  const finding = await warehouse.one<{ finding_id: string }>(
    `SELECT finding_id FROM recon_exceptions WHERE period = $1 AND exception_type = 'refunded_not_reversed' AND transaction_id IS NOT NULL
     ORDER BY finding_id LIMIT 1`,
    [period],
  );
  if (!finding) return null;
  output.info(
    `demo: ${demoController} decides to reverse one refunded sale; ${demoApprover} approves; execute reverses it`,
  );
  const note = 'refunded to the customer: reverse at the provider';
  await decideFindings(warehouse, [finding.finding_id], { decision: 'reverse', note, by: demoController });
  const plan = await planActions(warehouse, config, { period, by: demoController });
  const action = plan.proposed.find((p) => p.findingId === finding.finding_id && p.kind === 'reversal');
  if (!action) return null;
  await approveActions(warehouse, config, { period, actionIds: [action.actionId], by: demoApprover });
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
  const simulator = await startSimulator({
    seed: options.seed ?? 7,
    identifier,
    secret,
    dataset: { from, to: asOf, salesCount: days * (options.salesPerDay ?? 300), timezone, malformedEvery: 2_500 },
  });
  const sink = await startMailSink(path.join(outDir, 'mail'));
  try {
    const config: Config = configSchema.parse({
      timezone,
      database: path.join(outDir, 'pinrecon.duckdb'),
      api: { baseUrl: simulator.url, identifier, secret },
      // The simulator holds no sale created before the period: the windows prove absence, with no look-ups.
      extract: { landingDir: path.join(outDir, 'landing'), historyStart: from },
      ledger: { path: path.join(outDir, 'ledger.csv') },
      reports: { outDir: path.join(outDir, 'reports') },
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
      reversal = await actOnOneFinding(warehouse, config, period, output);
      findings = await warehouse.all(
        `select exception_type, count(*)::INTEGER as findings, sum(difference)::VARCHAR as amount
         from recon_exceptions where period = $1 group by exception_type order by findings desc, exception_type`,
        [period],
      );
      totals = await warehouse.all(
        `select currency_code, provider_billable_sales::INTEGER as provider_sales, provider_sales_total::VARCHAR as provider_sales_total,
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
      reversal,
      totals,
      seconds: (Date.now() - started) / 1000,
    };
  } finally {
    await sink.close();
    await simulator.close();
  }
}
