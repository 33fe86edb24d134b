/**
 * For the actions tests: a reconciled month against the simulator over real HTTP (extract, a generated
 * ledger with planted breaks, reconcile — in this process), a config file the built CLI reads, and a way to
 * run the CLI on it.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { configSchema, type Config } from '../../config/schema.js';
import { Warehouse } from '../../core/warehouse.js';
import { extractSales } from '../../pipelines/extract/extract.js';
import { importLedger } from '../../pipelines/ledger/import.js';
import { reconcile } from '../../pipelines/reconcile/reconcile.js';
import { listActions } from '../../pipelines/actions/store.js';
import { generateLedger } from '../../doubles/simulator/ledger-generator.js';
import { startSimulator, type RunningSimulator, type SimulatorOptions } from '../../doubles/simulator/server.js';
import { runCli, startCli, type CliResult, type RunningCli } from './cli.js';
import { capturingOutput } from './reconcile.js';
import { approveAllStep, closeStep, decideStep, planStep, reconcileStep } from './commands.js';

export const period = '2024-03';
export const asOf = '2024-04-10';

export interface ActionsMonth {
  dir: string;
  config: Config;
  configFile: string;
  simulator: RunningSimulator;
  cli(...args: string[]): Promise<CliResult>;
  startCli(...args: string[]): RunningCli;
  /** Runs `work` on the database, opened for this moment only (the CLI needs it free). */
  withDatabase<T>(work: (warehouse: Warehouse) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export async function reconciledMonth(
  simulatorOptions: SimulatorOptions = {},
  configOverrides: Record<string, unknown> = {},
): Promise<ActionsMonth> {
  const dir = mkdtempSync(path.join(tmpdir(), 'pinrecon-actions-'));
  const simulator = await startSimulator({
    seed: 5,
    dataset: { from: '2024-02-20', to: '2024-04-06', salesCount: 1_400, timezone: 'America/Sao_Paulo' },
    ...simulatorOptions,
  });
  const fileConfig = {
    timezone: 'America/Sao_Paulo',
    database: path.join(dir, 'pinrecon.duckdb'),
    api: { baseUrl: simulator.url, maxRequestsPerSecond: 40 },
    extract: { landingDir: path.join(dir, 'landing') },
    reports: { outDir: path.join(dir, 'reports') },
    reconciliation: { lookupMissing: false },
    // Limits for the simulator's currencies: approvals in a currency without one fail closed (issue 34).
    actions: { approvalLimit: { BRL: 1000, USD: 1000 } },
    ...configOverrides,
  };
  const configFile = path.join(dir, 'pinrecon.config.json');
  writeFileSync(configFile, JSON.stringify(fileConfig, null, 2));
  const config = configSchema.parse({
    ...fileConfig,
    api: { ...fileConfig.api, identifier: 'demo-partner', secret: 'demo-secret' },
  });
  const env = { PINRECON_API_IDENTIFIER: 'demo-partner', PINRECON_API_SECRET: 'demo-secret' };
  const withDatabase = async <T>(work: (warehouse: Warehouse) => Promise<T>): Promise<T> => {
    const warehouse = await Warehouse.open(config.database, { timezone: config.timezone });
    try {
      return await work(warehouse);
    } finally {
      warehouse.close();
    }
  };
  await withDatabase(async (warehouse) => {
    const { output } = capturingOutput();
    await extractSales(
      warehouse,
      config,
      { from: '2024-03-01', to: '2024-03-31', by: 'both', today: '2024-06-01' },
      output,
    );
    const file = path.join(dir, 'ledger.csv');
    const planted = { period, asOf, file, reconciliation: config.reconciliation, salesPerBreak: 300 };
    const plant = await generateLedger(simulator.dataset, planted);
    await importLedger(warehouse, config, plant.file, {}, output);
    await reconcile(warehouse, config, { period, asOf }, output);
  });
  return {
    dir,
    config,
    configFile,
    simulator,
    cli: (...args) => runCli([...args, '--config', configFile], { env }),
    startCli: (...args) => startCli([...args, '--config', configFile], { env }),
    withDatabase,
    async close() {
      await simulator.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * `actions execute --by <by>` killed with SIGKILL while one reversal is in hand: the simulator must hold its answer
 * (reconciledMonth({ reversalAnswerDelayMs: 600_000 })), so the kill lands with that action in flight however fast
 * or slow the machine is. Waits for the simulator's count of reversals, not for a time.
 */
export async function executeKilledMidReversal(month: ActionsMonth, by: string): Promise<CliResult> {
  const running = month.startCli('actions', 'execute', '--period', period, '--by', by);
  while (month.simulator.stats().reversals === 0) {
    if (running.child.exitCode !== null) throw new Error(`execute ended before reversing: ${running.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  running.child.kill('SIGKILL');
  return running.done;
}

/** The period's findings of a type (id, transaction, difference), from the database. */
export type FindingOfType = { finding_id: string; transaction_id: string | null; difference: string | null };

export async function findingsOfType(month: ActionsMonth, type: string): Promise<FindingOfType[]> {
  return month.withDatabase((w) =>
    w.all(
      `SELECT finding_id, transaction_id::VARCHAR AS transaction_id, difference::VARCHAR AS difference
       FROM recon_exceptions
           WHERE period = $1 AND exception_type = $2 ORDER BY finding_id`,
      [period, type],
    ),
  );
}

/*
 * Setup steps in this process (test/support/commands.ts, issue 27) on the month, for the tests whose subject is a
 * later command; the commands' own wiring is proven by the tests that spawn them (test/cli/actions.test.ts).
 */

/** `findings decide ID… --decision D [--note N] --by B`, in this process. */
export async function decideInProcess(
  month: ActionsMonth,
  ids: string[],
  decision: string,
  note?: string,
  by = 'Ana Lima',
): Promise<void> {
  await decideStep(month.config, ids, { decision, note, by });
}

/** `actions plan --period P --by planner`, then `actions approve --period P --all --by approver`, in this process. */
export async function planAndApproveInProcess(month: ActionsMonth, approver: string, planner = 'Ana Lima') {
  await planStep(month.config, period, planner);
  await approveAllStep(month.config, period, approver);
}

/**
 * The refunded_not_reversed findings (at least two) decided `reverse` by Ana Lima, planned by her and all approved by
 * `approver`, in this process: the approved reversals by finding.
 */
export async function approvedReversals(
  month: ActionsMonth,
  approver = 'Bruno Costa',
): Promise<Map<string, { action_id: string; transaction_id: string }>> {
  const refunded = await findingsOfType(month, 'refunded_not_reversed');
  if (refunded.length < 2) throw new Error(`expected 2 or more refunded_not_reversed findings, got ${refunded.length}`);
  await decideInProcess(
    month,
    refunded.map((f) => f.finding_id),
    'reverse',
    'checked with the provider',
  );
  await planAndApproveInProcess(month, approver);
  const actions = await month.withDatabase((w) => listActions(w, { period }));
  const notApproved = actions.filter((a) => a.status !== 'approved');
  if (notApproved.length > 0) throw new Error(`actions not approved: ${JSON.stringify(notApproved)}`);
  return new Map(actions.map((a) => [a.finding_id, { action_id: a.action_id, transaction_id: a.transaction_id! }]));
}

/** `close --period P --by B --allow-undecided`, in this process. */
export async function closeInProcess(month: ActionsMonth, by: string): Promise<void> {
  await closeStep(month.config, { period, by, allowUndecided: true });
}

/** `reconcile --period P --as-of A`, in this process. */
export async function reconcileInProcess(month: ActionsMonth): Promise<void> {
  await reconcileStep(month.config, { period, asOf });
}
