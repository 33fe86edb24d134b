/**
 * The facts of one period's report, read from the marts and the run trace: totals per currency, the cost
 * bridge, counts and amounts per finding type, what changed since the previous reconciliation, key aging,
 * and when and from what the data was extracted. The Summary sheet and the email body are both made of
 * these, so the two always agree. Money stays the database's exact decimal text; times are the local
 * wall-clock time in the configured zone ("YYYY-MM-DD HH:MM:SS").
 */
import { JobError } from '../core/errors.js';
import type { Warehouse } from '../core/warehouse.js';
import { sqlString } from '../core/sql.js';
import { findingTypeNames } from '../core/finding-types.js';
import { sqlText } from '../core/paths.js';
import type { CloseFacts } from './close-facts.js';
import { loadDecisionFacts, type DecisionFacts } from './decision-facts.js';
import { loadRollForward, type RollForwardLine } from './roll-forward.js';
import { loadActionFacts, type ActionFacts } from './actions-sheet.js';
import { loadCarriedForward, type CarriedForwardLine } from './carried-forward-sheet.js';
import { loadSuggestionsToReview } from './match-sheet.js';
import { loadCloseFacts, type CheckedCompleteness, type SignoffFacts } from './signoffs.js';
import { type Decimal, nullableText as text } from './formats.js';
import { loadExtraction, loadLedgerFacts, type Extraction, type LedgerFacts } from './source-facts.js';

export type { ExtractRun, ExtractWindow, Extraction, LedgerFacts } from './source-facts.js';

export type { Decimal } from './formats.js';

export interface CurrencyTotals {
  currency: string | null;
  ledgerOrders: string;
  /** Of which paid: the orders the money totals are about. */
  ledgerPaidOrders: string;
  ledgerSalesTotal: Decimal;
  ledgerCostTotal: Decimal;
  providerSales: string;
  /** Of which not canceled: the sales the money totals are about. */
  providerBillableSales: string;
  providerSalesTotal: Decimal;
  providerCostTotal: Decimal;
  providerMargin: Decimal;
  matched: string;
  findings: string;
}

/**
 * The totals per currency as columns: the Summary sheet and the email list the same ones, in this order.
 * Money is about paid ledger orders and provider sales that are not canceled: the counts beside it say so.
 */
export const totalsColumns: { header: string; kind: 'count' | 'money'; value: (t: CurrencyTotals) => string | null }[] =
  [
    { header: 'Ledger orders', kind: 'count', value: (t) => t.ledgerOrders },
    { header: 'of which paid', kind: 'count', value: (t) => t.ledgerPaidOrders },
    { header: 'Ledger sales (paid)', kind: 'money', value: (t) => t.ledgerSalesTotal },
    { header: 'Ledger expected cost (paid)', kind: 'money', value: (t) => t.ledgerCostTotal },
    { header: 'Provider sales', kind: 'count', value: (t) => t.providerSales },
    { header: 'of which not canceled', kind: 'count', value: (t) => t.providerBillableSales },
    { header: 'Provider sales total (not canceled)', kind: 'money', value: (t) => t.providerSalesTotal },
    { header: 'Provider cost (not canceled)', kind: 'money', value: (t) => t.providerCostTotal },
    { header: 'Provider margin (not canceled)', kind: 'money', value: (t) => t.providerMargin },
    { header: 'Matched', kind: 'count', value: (t) => t.matched },
    { header: 'Findings', kind: 'count', value: (t) => t.findings },
  ];

export interface BridgeLine {
  currency: string | null;
  step: number;
  label: string;
  findingType: string | null;
  amount: Decimal;
  items: string;
}

export interface FindingAmounts {
  findingType: string;
  currency: string | null;
  findings: string;
  ledgerValue: Decimal;
  providerValue: Decimal;
  difference: Decimal;
  bridgeAmount: Decimal;
}

export interface TypeCount {
  findingType: string;
  findings: number;
}

export interface ChangeCounts {
  findingType: string;
  new: number;
  stillOpen: number;
  cleared: number;
}

export interface Changes {
  runId: string;
  builtAt: string;
  /** The reconciliation before it, if any: what "new" and "cleared" are measured against. */
  previousBuiltAt: string | null;
  new: number;
  stillOpen: number;
  cleared: number;
  byType: ChangeCounts[];
}

export interface AgingLine {
  currency: string | null;
  bucket: string;
  keys: string;
  costTotal: Decimal;
}

export interface ReportFacts {
  period: string;
  asOf: string;
  timezone: string;
  /** When the marts were built (local time). */
  reconciledAt: string;
  totals: CurrencyTotals[];
  bridge: BridgeLine[];
  /** Every finding type of the registry (zeros included), then any other type found. */
  typeCounts: TypeCount[];
  findingAmounts: FindingAmounts[];
  totalFindings: number;
  changes: Changes | null;
  aging: AgingLine[];
  ledger: LedgerFacts;
  extraction: Extraction;
  /** Completeness verdict and sign-off state (reports/signoffs.ts loadCloseFacts). */
  close: CloseFacts;
  /**
   * Decisions, pending / overdue / undecided findings, gross amounts, the largest open findings (decision-facts.ts).
   */
  decisions: DecisionFacts;
  /** missing_at_provider findings by proof (README "Proof of absence"). */
  missingProof: MissingProof;
  /** Suggested matches nobody has confirmed or rejected yet (issue 29; match-sheet.ts). */
  suggestionsToReview?: number;
  /** The roll-forward of open findings per currency (roll-forward.ts). */
  rollForward: RollForwardLine[];
  /** Actions waiting for approval and failed ones (actions-sheet.ts). */
  actions: ActionFacts;
  /** What earlier periods left open, per currency (carried-forward-sheet.ts, issue 30). */
  carriedForward: CarriedForwardLine[];
}

export interface MissingProof {
  windows: number;
  lookup: number;
  unproven: number;
}

/** The marts the report reads: all written by `pinrecon reconcile`. */
const martTables = [
  'recon_exceptions',
  'recon_summary',
  'recon_bridge',
  'recon_aging',
  'recon_exception_history',
  'recon_runs',
];

/**
 * Reads the period's facts, all of them: what the workbook and the email say comes from here. Fails with what to
 * do when the period was never reconciled, or was reconciled as of another date than the one asked for. Each
 * fact's query is a file of `sql/report/`. `completeness`: as the job checked it (reports/signoffs.ts); `signoff`:
 * the sign-off part of the close facts, read by the caller (pipelines/close/signoffs.ts loadSignoffFacts).
 */
export async function loadReportFacts(
  warehouse: Warehouse,
  options: {
    period: string;
    asOf?: string;
    timezone: string;
    signoff: SignoffFacts;
    completeness?: CheckedCompleteness;
  },
): Promise<ReportFacts> {
  const { period, timezone } = options;
  const state = await loadReconciledState(warehouse, options);
  const totals = await loadCurrencyTotals(warehouse, period);
  const findingAmounts = await loadFindingAmounts(warehouse, period);
  const typeCounts = countByType(findingAmounts);
  return {
    period,
    asOf: state.asOf,
    timezone,
    reconciledAt: state.reconciledAt,
    totals,
    bridge: await loadBridge(warehouse, period),
    typeCounts,
    findingAmounts,
    totalFindings: typeCounts.reduce((sum, type) => sum + type.findings, 0),
    changes: await loadChanges(warehouse, period, timezone),
    aging: await loadAging(warehouse, period),
    ledger: await loadLedgerFacts(
      warehouse,
      period,
      timezone,
      totals.reduce((sum, row) => sum + Number(row.ledgerOrders), 0),
    ),
    extraction: await loadExtraction(warehouse, period, timezone),
    decisions: await loadDecisionFacts(warehouse, period),
    missingProof: await loadMissingProof(warehouse, period),
    suggestionsToReview: await loadSuggestionsToReview(warehouse, period),
    close: await loadCloseFacts(warehouse, period, options.signoff, options.completeness),
    rollForward: await loadRollForward(warehouse, period),
    actions: await loadActionFacts(warehouse, period),
    carriedForward: await loadCarriedForward(warehouse, period),
  };
}

async function loadMissingProof(warehouse: Warehouse, period: string): Promise<MissingProof> {
  const proof: MissingProof = { windows: 0, lookup: 0, unproven: 0 };
  for (const row of await warehouse.all(sqlText('report', 'missing_proof.sql'), { period })) {
    const kind = String(row.proof) as keyof MissingProof;
    if (kind in proof) proof[kind] = Number(row.findings);
  }
  return proof;
}

/** Checks the marts exist and the period was reconciled (as of the date asked for, if any). */
async function loadReconciledState(
  warehouse: Warehouse,
  { period, asOf, timezone }: { period: string; asOf?: string; timezone: string },
): Promise<{ asOf: string; reconciledAt: string }> {
  const reconcileHint = `Run \`pinrecon reconcile --period ${period}${asOf ? ` --as-of ${asOf}` : ''}\` first.`;
  const present = await warehouse.all<{ name: string }>(
    `SELECT table_name AS name FROM information_schema.tables WHERE table_name IN ` +
      `(${martTables.map(sqlString).join(', ')})`,
  );
  const missing = martTables.filter((table) => !present.some((row) => row.name === table));
  if (missing.length > 0) {
    throw new JobError(
      `The database ${warehouse.path} has no reconciliation tables (${missing.join(', ')}).`,
      reconcileHint,
    );
  }
  const state = await warehouse.one<{ as_of: string; reconciled_at: string }>(sqlText('report', 'summary_state.sql'), {
    period,
    timezone,
  });
  if (!state?.as_of) throw new JobError(`The period ${period} has not been reconciled yet.`, reconcileHint);
  if (asOf && asOf !== state.as_of) {
    throw new JobError(
      `The period ${period} was reconciled as of ${state.as_of}, not ${asOf}.`,
      `Run \`pinrecon reconcile --period ${period} --as-of ${asOf}\` first, or leave out --as-of to report as of ` +
        `${state.as_of}.`,
    );
  }
  return { asOf: state.as_of, reconciledAt: state.reconciled_at };
}

async function loadCurrencyTotals(warehouse: Warehouse, period: string): Promise<CurrencyTotals[]> {
  const rows = await warehouse.all(sqlText('report', 'currency_totals.sql'), { period });
  return rows.map((row) => ({
    currency: text(row.currency_code),
    ledgerOrders: String(row.ledger_orders),
    ledgerPaidOrders: String(row.ledger_active_orders),
    ledgerSalesTotal: text(row.ledger_sales_total),
    ledgerCostTotal: text(row.ledger_cost_total),
    providerSales: String(row.provider_sales),
    providerBillableSales: String(row.provider_billable_sales),
    providerSalesTotal: text(row.provider_sales_total),
    providerCostTotal: text(row.provider_cost_total),
    providerMargin: text(row.provider_margin),
    matched: String(row.matched),
    findings: String(row.exceptions),
  }));
}

async function loadBridge(warehouse: Warehouse, period: string): Promise<BridgeLine[]> {
  const rows = await warehouse.all(sqlText('report', 'cost_bridge.sql'), { period });
  return rows.map((row) => ({
    currency: text(row.currency_code),
    step: Number(row.step),
    label: String(row.label),
    findingType: text(row.exception_type),
    amount: text(row.amount),
    items: String(row.items),
  }));
}

async function loadFindingAmounts(warehouse: Warehouse, period: string): Promise<FindingAmounts[]> {
  const rows = await warehouse.all(sqlText('report', 'finding_amounts.sql'), { period });
  return rows.map((row) => ({
    findingType: String(row.exception_type),
    currency: text(row.currency_code),
    findings: String(row.findings),
    ledgerValue: text(row.ledger_value),
    providerValue: text(row.provider_value),
    difference: text(row.difference),
    bridgeAmount: text(row.amount),
  }));
}

/** Every finding type of the registry (zeros included), then any other type found, with its findings. */
function countByType(amounts: FindingAmounts[]): TypeCount[] {
  const counted = new Map<string, number>();
  for (const row of amounts) counted.set(row.findingType, (counted.get(row.findingType) ?? 0) + Number(row.findings));
  const otherTypes = [...counted.keys()]
    .filter((type) => !(findingTypeNames as readonly string[]).includes(type))
    .sort();
  return [...findingTypeNames, ...otherTypes].map((findingType) => ({
    findingType,
    findings: counted.get(findingType) ?? 0,
  }));
}

async function loadChanges(warehouse: Warehouse, period: string, timezone: string): Promise<Changes | null> {
  const runs = await warehouse.all(sqlText('report', 'latest_runs.sql'), { period, timezone });
  const latest = runs[0];
  if (!latest) return null;
  const byType = await warehouse.all(sqlText('report', 'changes_by_type.sql'), { run_id: String(latest.run_id) });
  return {
    runId: String(latest.run_id),
    builtAt: String(latest.built_at),
    previousBuiltAt: runs[1] ? String(runs[1].built_at) : null,
    new: Number(latest.new),
    stillOpen: Number(latest.still_open),
    cleared: Number(latest.cleared),
    byType: byType.map((row) => ({
      findingType: String(row.exception_type),
      new: Number(row.new),
      stillOpen: Number(row.still_open),
      cleared: Number(row.cleared),
    })),
  };
}

async function loadAging(warehouse: Warehouse, period: string): Promise<AgingLine[]> {
  const rows = await warehouse.all(sqlText('report', 'key_aging.sql'), { period });
  return rows.map((row) => ({
    currency: text(row.currency_code),
    bucket: String(row.aging_bucket),
    keys: String(row.keys),
    costTotal: text(row.cost_total),
  }));
}
