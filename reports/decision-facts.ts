/**
 * The close facts of a period's report: its verdict and sign-off state (when the database has them), the
 * findings and amounts per currency by decision and by state (undecided, pending, overdue), the gross debit
 * and credit beside every net amount so offsetting breaks cannot hide, the gross of each bridge step, and
 * the largest open findings. The Summary sheet and the email both read these.
 */
import type { Warehouse } from '../core/warehouse.js';
import { sqlString } from '../core/sql.js';
import { maskedKeySql } from '../core/masking.js';
import { findingStateSql } from './finding-state.js';
import { findingAmountSql, findingExposureSql } from './finding-amount.js';
import type { Decimal } from './formats.js';

/** Net, gross debit (the positive amounts) and gross credit (the negative ones, as a positive number). */
export interface Gross {
  net: Decimal;
  grossDebit: Decimal;
  grossCredit: Decimal;
  /** Unredeemed keys' cost at stake (finding-amount.ts), apart: never part of net or gross (issue 30). */
  exposure: Decimal;
}

export interface DecisionLine extends Gross {
  currency: string | null;
  /**
   * Two blocks, each counting every finding of the currency once: `decision` (one line per decision, and
   * `undecided`), `state` (undecided, pending, overdue, decided: finding-state.ts).
   */
  kind: 'decision' | 'state';
  label: string;
  findings: number;
}

/** Per currency, every finding once: what each block of the decisions table adds up to. */
export interface DecisionTotal extends Gross {
  currency: string | null;
  findings: number;
}

export interface BridgeGross {
  currency: string | null;
  findingType: string;
  grossDebit: Decimal;
  grossCredit: Decimal;
}

export interface OpenFinding {
  findingId: string;
  findingType: string;
  partnerReference: string | null;
  currency: string | null;
  amount: Decimal;
  state: string;
  decision: string | null;
  /** The PIN as the workbook shows it: its last 4 characters behind the mask ("••••3333", core/masking.ts). */
  keyLast4: string | null;
}

export interface DecisionFacts {
  /** recon_summary.verdict / signoff_status when the database has those columns, else null. */
  verdict: string | null;
  signoffStatus: string | null;
  lines: DecisionLine[];
  totals: DecisionTotal[];
  bridgeGross: BridgeGross[];
  /**
   * The three largest findings that are not pending, by absolute amount (the cost bridge effect, finding-amount.ts).
   */
  largestOpen: OpenFinding[];
  /** Per currency, the findings the materiality rule decided accepted (issue 30: listed apart, never dropped). */
  acceptedByRule: { currency: string | null; findings: number; amount: Decimal }[];
  /** Per finding type, the findings a person has to decide: undecided, or `timing` past its clear-by (issue 30). */
  toDecide: { findingType: string; undecided: number; overdue: number }[];
}

const grossSql = `sum(amount)::VARCHAR AS net,
  coalesce(sum(amount) FILTER (WHERE amount > 0), 0)::VARCHAR AS gross_debit,
  coalesce(-sum(amount) FILTER (WHERE amount < 0), 0)::VARCHAR AS gross_credit,
  coalesce(sum(exposure), 0)::VARCHAR AS exposure`;

/** The order of the state block's lines: the breaks to account for first. */
const stateOrder = `CASE label WHEN 'undecided' THEN 1 WHEN 'overdue' THEN 2 WHEN 'pending' THEN 3 ELSE 4 END`;

export async function loadDecisionFacts(warehouse: Warehouse, period: string): Promise<DecisionFacts> {
  const p = sqlString(period);
  // Every finding of the period once, with its state, its amount (the cost bridge effect) and its exposure apart
  // (finding-amount.ts, issue 30): the roll-forward adds up the same amounts.
  const stated = `(SELECT e.* EXCLUDE (amount, exposure), ${findingAmountSql('e')} AS amount,
       ${findingExposureSql('e')} AS exposure, ${findingStateSql('e')} AS state
     FROM recon_exceptions e WHERE e.period = ${p})`;
  const lines = await warehouse.all(
    `SELECT currency_code, kind, label, findings, net, gross_debit, gross_credit, exposure FROM (
       SELECT currency_code, 'decision' AS kind, coalesce(decision, 'undecided') AS label, count(*) AS findings,
         ${grossSql}
       FROM ${stated} GROUP BY ALL
       UNION ALL
       SELECT currency_code, 'state' AS kind, state AS label, count(*) AS findings, ${grossSql}
       FROM ${stated} GROUP BY ALL
     ) ORDER BY currency_code NULLS LAST, kind, CASE WHEN kind = 'state' THEN ${stateOrder} ELSE 0 END, label`,
  );
  const totals = await warehouse.all(
    `SELECT currency_code, count(*) AS findings, ${grossSql} FROM ${stated} GROUP BY ALL ORDER BY currency_code ` +
      `NULLS LAST`,
  );
  const bridgeGross = await warehouse.all(
    `SELECT currency_code, exception_type,
            coalesce(sum(amount) FILTER (WHERE amount > 0), 0)::VARCHAR AS gross_debit,
            coalesce(-sum(amount) FILTER (WHERE amount < 0), 0)::VARCHAR AS gross_credit
     FROM recon_exceptions WHERE period = ${p} GROUP BY ALL`,
  );
  const byRule = await warehouse.all(
    `SELECT currency_code, count(*)::INTEGER AS findings, sum(amount)::VARCHAR AS amount FROM recon_exceptions
     WHERE period = ${p} AND decision = 'accepted' AND decided_by = 'rule:materiality'
     GROUP BY ALL ORDER BY currency_code NULLS LAST`,
  );
  const toDecide = await warehouse.all(
    `SELECT exception_type, count(*) FILTER (WHERE state = 'undecided')::INTEGER AS undecided,
            count(*) FILTER (WHERE state = 'overdue')::INTEGER AS overdue
     FROM ${stated} WHERE state IN ('undecided', 'overdue') GROUP BY ALL ORDER BY exception_type`,
  );
  const largest = await warehouse.all(
    `SELECT finding_id, exception_type, partner_reference, currency_code, amount::VARCHAR AS amount, state, decision,
            ${maskedKeySql('key_last4', 'last4')} AS key_last4
     FROM ${stated} WHERE state <> 'pending'
     ORDER BY abs(amount) DESC NULLS LAST, abs(difference) DESC NULLS LAST, finding_id LIMIT 3`,
  );
  return {
    ...(await closeState(warehouse, p)),
    lines: lines.map((r) => ({
      currency: text(r.currency_code),
      kind: r.kind as DecisionLine['kind'],
      label: String(r.label),
      findings: Number(r.findings),
      net: text(r.net),
      grossDebit: text(r.gross_debit),
      grossCredit: text(r.gross_credit),
      exposure: text(r.exposure),
    })),
    totals: totals.map((r) => ({
      currency: text(r.currency_code),
      findings: Number(r.findings),
      net: text(r.net),
      grossDebit: text(r.gross_debit),
      grossCredit: text(r.gross_credit),
      exposure: text(r.exposure),
    })),
    bridgeGross: bridgeGross.map((r) => ({
      currency: text(r.currency_code),
      findingType: String(r.exception_type),
      grossDebit: text(r.gross_debit),
      grossCredit: text(r.gross_credit),
    })),
    acceptedByRule: byRule.map((r) => ({
      currency: text(r.currency_code),
      findings: Number(r.findings),
      amount: text(r.amount),
    })),
    toDecide: toDecide.map((r) => ({
      findingType: String(r.exception_type),
      undecided: Number(r.undecided),
      overdue: Number(r.overdue),
    })),
    largestOpen: largest.map((r) => ({
      findingId: String(r.finding_id),
      findingType: String(r.exception_type),
      partnerReference: text(r.partner_reference),
      currency: text(r.currency_code),
      amount: text(r.amount),
      state: String(r.state),
      decision: text(r.decision),
      keyLast4: text(r.key_last4),
    })),
  };
}

/** The verdict and sign-off state, read only if recon_summary has those columns (the close feature adds them). */
async function closeState(
  warehouse: Warehouse,
  period: string,
): Promise<{ verdict: string | null; signoffStatus: string | null }> {
  const columns = new Set(
    (
      await warehouse.all<{ name: string }>(
        `SELECT column_name AS name FROM duckdb_columns() WHERE schema_name = 'main' AND table_name = ` +
          `'recon_summary' AND column_name IN ('verdict', 'signoff_status')`,
      )
    ).map((r) => r.name),
  );
  if (columns.size === 0) return { verdict: null, signoffStatus: null };
  const pick = (column: string) => (columns.has(column) ? `max(${column})::VARCHAR` : 'NULL');
  const row = await warehouse.one(
    `SELECT ${pick('verdict')} AS verdict, ${pick('signoff_status')} AS signoff_status FROM recon_summary WHERE ` +
      `period = ${period}`,
  );
  return { verdict: text(row?.verdict), signoffStatus: text(row?.signoff_status) };
}

function text(value: unknown): string | null {
  return value === null || value === undefined ? null : String(value);
}
