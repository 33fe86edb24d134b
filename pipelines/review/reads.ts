/**
 * What the review page shows (issue 32), read from DuckDB per request: the period overview (the report's facts),
 * the findings list filtered, sorted and paged in SQL (LIMIT/OFFSET, so 100,000 findings never reach the browser),
 * one finding with both sides, its proof, suggestions and history, the suggested matches and the actions. PINs
 * leave as their last 4 characters only.
 */
import type { Config } from '../../config/schema.js';
import { findingFamilyNames, findingTypeNames } from '../../core/finding-types.js';
import { maskPin, maskPinLast4 } from '../../core/masking.js';
import type { Warehouse } from '../../core/warehouse.js';
import { describeClose, type CloseDescription } from '../../reports/close-facts.js';
import { findingAmountSql, findingExposureSql } from '../../reports/finding-amount.js';
import { findingStateSql, findingStates } from '../../reports/finding-state.js';
import { loadReportFacts, type ReportFacts } from '../../reports/report-facts.js';
import { listActions, type ListedAction } from '../actions/store.js';
import { activeSignoff } from '../close/signoffs.js';
import { loadSignoffFacts } from '../close/signoffs.js';
import { decisionHistory, type DecisionHistoryRow } from '../decisions/findings-list.js';
import { listMatches, type MatchRow } from '../decisions/matches.js';

/** The periods the database has findings or totals for, latest first. */
export async function knownPeriods(warehouse: Warehouse): Promise<string[]> {
  const rows = await warehouse.all<{ period: string }>(
    'SELECT DISTINCT period FROM recon_summary UNION SELECT DISTINCT period FROM recon_exceptions ORDER BY 1 DESC',
  );
  return rows.map((r) => r.period);
}

/** Why a period cannot be changed (its active sign-off), or null. */
export async function readOnlyReason(warehouse: Warehouse, period: string, timezone: string): Promise<string | null> {
  const signoff = await activeSignoff(warehouse, period, timezone);
  if (!signoff) return null;
  return (
    `${period} was signed off by ${signoff.signedBy} at ${signoff.signedAt}; decisions and matches are refused ` +
    `until it is reopened (pinrecon reopen --period ${period} --reason "…").`
  );
}

export interface Overview {
  period: string;
  periods: string[];
  close: CloseDescription;
  facts: ReportFacts;
}

export async function overview(warehouse: Warehouse, config: Config, period: string): Promise<Overview> {
  const facts = await loadReportFacts(warehouse, {
    period,
    timezone: config.timezone,
    signoff: await loadSignoffFacts(warehouse, period, config.timezone),
  });
  return { period, periods: await knownPeriods(warehouse), close: describeClose(facts.close), facts };
}

/** The findings list's filters, sort and page, as the query string gives them (validated here). */
export interface FindingQuery {
  period: string;
  type?: string;
  family?: string;
  /** A decision, or `none` for undecided. */
  decision?: string;
  state?: string;
  owner?: string;
  minAmount?: string;
  maxAmount?: string;
  maxExposure?: string;
  /** Part of a partner reference or a transaction id. */
  q?: string;
  sort: (typeof sortable)[number];
  dir: 'asc' | 'desc';
  page: number;
  pageSize: number;
}

export const sortable = ['type', 'reference', 'amount', 'exposure', 'state', 'decision', 'owner', 'age'] as const;
const sortSql: Record<(typeof sortable)[number], string> = {
  type: 'exception_type',
  reference: 'partner_reference',
  amount: 'amount',
  exposure: 'exposure',
  state: 'state',
  decision: 'decision',
  owner: 'owner',
  age: 'age_days',
};

/** Reads the list's query string; a bad value is a message for the page, never a SQL fragment. */
export function parseFindingQuery(period: string, params: URLSearchParams): FindingQuery {
  const text = (name: string) => {
    const value = params.get(name)?.trim();
    return value ? value : undefined;
  };
  const oneOf = (name: string, allowed: readonly string[]) => {
    const value = text(name);
    if (value !== undefined && !allowed.includes(value))
      throw new RangeError(`${name} must be one of ${allowed.join(', ')}, got "${value}"`);
    return value;
  };
  const amount = (name: string) => {
    const value = text(name);
    if (value !== undefined && !/^-?\d+(\.\d{1,4})?$/.test(value))
      throw new RangeError(`${name} must be an amount such as 50 or 12.50, got "${value}"`);
    return value;
  };
  const page = Number(text('page') ?? '1');
  if (!Number.isInteger(page) || page < 1) throw new RangeError(`page must be a whole number from 1`);
  return {
    period,
    type: oneOf('type', findingTypeNames),
    family: oneOf('family', findingFamilyNames),
    decision: text('decision'),
    state: oneOf('state', findingStates),
    owner: text('owner'),
    minAmount: amount('min_amount'),
    maxAmount: amount('max_amount'),
    maxExposure: amount('max_exposure'),
    q: text('q'),
    sort: (oneOf('sort', sortable) ?? 'type') as FindingQuery['sort'],
    dir: text('dir') === 'desc' ? 'desc' : 'asc',
    page,
    pageSize: 100,
  };
}

export type ListedRow = {
  finding_id: string;
  exception_type: string;
  family: string;
  partner_reference: string | null;
  transaction_id: string | null;
  currency_code: string | null;
  amount: string;
  exposure: string | null;
  state: string;
  decision: string | null;
  owner: string | null;
  age_days: number | null;
};

export interface FindingPage {
  query: FindingQuery;
  total: number;
  rows: ListedRow[];
}

/** One page of the period's findings: filtered, sorted and counted in DuckDB. */
export async function findingPage(warehouse: Warehouse, query: FindingQuery): Promise<FindingPage> {
  const { filtered, params } = filteredFindings(query);
  return pageOf(warehouse, query, filtered, params);
}

/**
 * Every finding id the list's filters choose (all pages): what "decide every finding the filters choose" decides,
 * by id through `findings decide`'s function, so exactly the findings the page counted (issue 32).
 */
export async function filteredFindingIds(warehouse: Warehouse, query: FindingQuery): Promise<string[]> {
  const { filtered, params } = filteredFindings(query);
  const rows = await warehouse.all<{ finding_id: string }>(`SELECT finding_id FROM (${filtered})`, params);
  return rows.map((r) => r.finding_id);
}

/** The list's query as SQL over recon_exceptions, and its parameters (values never spliced into the text). */
function filteredFindings(query: FindingQuery): { filtered: string; params: Record<string, string | number> } {
  const where = ['true'];
  const params: Record<string, string | number> = { period: query.period };
  const add = (condition: string, name: string, value: string | undefined) => {
    if (value === undefined) return;
    where.push(condition);
    params[name] = value;
  };
  add('exception_type = $type', 'type', query.type);
  add('family = $family', 'family', query.family);
  if (query.decision === 'none') where.push('decision IS NULL');
  else add('decision = $decision', 'decision', query.decision);
  add('state = $state', 'state', query.state);
  add('owner ILIKE $owner', 'owner', query.owner === undefined ? undefined : `%${query.owner}%`);
  add('amount >= $minAmount::DECIMAL(18,4)', 'minAmount', query.minAmount);
  add('amount <= $maxAmount::DECIMAL(18,4)', 'maxAmount', query.maxAmount);
  add('coalesce(exposure, 0) <= $maxExposure::DECIMAL(18,4)', 'maxExposure', query.maxExposure);
  add(
    '(partner_reference ILIKE $q OR transaction_id::VARCHAR = $qExact)',
    'q',
    query.q === undefined ? undefined : `%${query.q}%`,
  );
  if (query.q !== undefined) params.qExact = query.q;
  const base = `SELECT e.finding_id, e.exception_type, e.family, e.partner_reference,
      e.transaction_id::VARCHAR AS transaction_id, e.currency_code, ${findingAmountSql('e')} AS amount,
      ${findingExposureSql('e')} AS exposure, ${findingStateSql('e')} AS state, e.decision, e.owner, e.age_days
    FROM recon_exceptions e WHERE e.period = $period`;
  return { filtered: `SELECT * FROM (${base}) WHERE ${where.join(' AND ')}`, params };
}

async function pageOf(
  warehouse: Warehouse,
  query: FindingQuery,
  filtered: string,
  params: Record<string, string | number>,
): Promise<FindingPage> {
  const direction = query.dir.toUpperCase();
  // Sorted on the source columns (f.), not the text the select turns amounts into: 9.75 sorts below 24.75.
  const order = `f.${sortSql[query.sort]} ${direction} NULLS LAST, f.exception_type, f.partner_reference, f.finding_id`;
  // The count rides on the page's own query (a window over the filtered rows, before LIMIT): one pass, not two.
  const rows = await warehouse.all<ListedRow & { total_rows?: string }>(
    `SELECT * REPLACE (amount::VARCHAR AS amount, exposure::VARCHAR AS exposure),
       count(*) OVER ()::VARCHAR AS total_rows FROM (${filtered}) f
     ORDER BY ${order} LIMIT ${query.pageSize} OFFSET ${(query.page - 1) * query.pageSize}`,
    params,
  );
  // A page past the end has no row to carry the count: ask for it alone then.
  const total =
    rows[0]?.total_rows ??
    (await warehouse.one<{ n: string }>(`SELECT count(*)::VARCHAR AS n FROM (${filtered})`, params))?.n;
  for (const row of rows) delete row.total_rows;
  return { query, total: Number(total ?? 0), rows };
}

/** The owners and decisions found in a period, for the filters' choices. */
export async function filterChoices(warehouse: Warehouse, period: string): Promise<{ decisions: string[] }> {
  const rows = await warehouse.all<{ decision: string }>(
    'SELECT DISTINCT decision FROM recon_exceptions WHERE period = $1 AND decision IS NOT NULL ORDER BY 1',
    [period],
  );
  return { decisions: ['none', ...rows.map((r) => r.decision)] };
}

export interface FindingDetail {
  finding: Record<string, unknown>;
  ledger: Record<string, unknown>[];
  sale: Record<string, unknown>[];
  landing: Record<string, unknown>[];
  lookups: Record<string, unknown>[];
  suggestions: MatchRow[];
  history: (DecisionHistoryRow & { signer_key_sha256: string | null })[];
}

/** One finding, both sides and what was decided on it; undefined when the database has no such finding. */
export async function findingDetail(
  warehouse: Warehouse,
  config: Config,
  findingId: string,
): Promise<FindingDetail | undefined> {
  const finding = await warehouse.one<Record<string, unknown>>(
    `SELECT * REPLACE (amount::VARCHAR AS amount, ledger_value::VARCHAR AS ledger_value,
        provider_value::VARCHAR AS provider_value, difference::VARCHAR AS difference,
        transaction_id::VARCHAR AS transaction_id,
        strftime(timezone($2, transaction_at), '%Y-%m-%d %H:%M') AS transaction_at,
        strftime(timezone($2, paid_at), '%Y-%m-%d %H:%M') AS paid_at, as_of::VARCHAR AS as_of,
        strftime(timezone($2, first_detected_at), '%Y-%m-%d %H:%M') AS first_detected_at,
        strftime(timezone($2, built_at), '%Y-%m-%d %H:%M') AS built_at),
      ${findingStateSql('e')} AS state
     FROM recon_exceptions e WHERE finding_id = $1 ORDER BY period DESC LIMIT 1`,
    [findingId, config.timezone],
  );
  if (!finding) return undefined;
  const shown = Object.fromEntries(
    Object.entries(finding).map(([k, v]) => [
      k,
      k === 'key_last4' && typeof v === 'string'
        ? maskPinLast4(v)
        : typeof v === 'bigint' || (v !== null && typeof v === 'object')
          ? String(v)
          : v,
    ]),
  );
  const reference = finding.partner_reference as string | null;
  const transactionId = finding.transaction_id as string | null;
  const ledger = await warehouse.all<Record<string, unknown>>(
    `SELECT partner_reference, product_id::VARCHAR AS product_id,
       strftime(timezone($2, paid_at), '%Y-%m-%d %H:%M') AS paid_at,
       sales_price::VARCHAR AS sales_price, expected_cost::VARCHAR AS expected_cost, currency_code, order_status,
       source_file, source_line::VARCHAR AS source_line
     FROM ledger WHERE trim(partner_reference) = $1 ORDER BY source_file, source_line LIMIT 20`,
    [reference ?? '', config.timezone],
  );
  const sales = await warehouse.all<Record<string, unknown>>(
    `SELECT transaction_id::VARCHAR AS transaction_id, partner_reference, product_id::VARCHAR AS product_id,
       product_name,
       sales_price::VARCHAR AS sales_price, partner_cost_price::VARCHAR AS partner_cost_price, status, status_class,
       strftime(timezone($3, transaction_at), '%Y-%m-%d %H:%M') AS transaction_at, sales_currency_code, key,
       last_run_id
     FROM sales WHERE transaction_id::VARCHAR = $1 OR (trim(partner_reference) = $2 AND $1 = '')
     ORDER BY transaction_id LIMIT 20`,
    [transactionId ?? '', reference ?? '', config.timezone],
  );
  const sale = sales.map(({ key, ...rest }) => ({ ...rest, key: typeof key === 'string' ? maskPin(key) : null }));
  const runs = [...new Set(sales.map((s) => s.last_run_id).filter((r): r is string => typeof r === 'string'))];
  // The landing files the run that last saw the sale wrote (the sale's record is in one of them).
  const landing = runs.length
    ? await warehouse.all<Record<string, unknown>>(
        `SELECT path, endpoint, window_start::VARCHAR AS window_start, window_end::VARCHAR AS window_end, by_flag,
           strftime(timezone($1, fetched_at), '%Y-%m-%d %H:%M') AS fetched_at, records::VARCHAR AS records
         FROM landing_files WHERE run_id IN (${runs.map((_, i) => `$${i + 2}`).join(', ')})
           AND ($${runs.length + 2} = '' OR window_start IS NULL
             OR $${runs.length + 2}::DATE BETWEEN window_start AND window_end)
         ORDER BY path LIMIT 20`,
        [config.timezone, ...runs, String(sales[0]?.transaction_at ?? '').slice(0, 10)],
      )
    : [];
  const lookups = await warehouse.all<Record<string, unknown>>(
    `SELECT run_id, strftime(timezone($2, asked_at), '%Y-%m-%d %H:%M') AS asked_at, found, records::VARCHAR AS records
     FROM provider_lookups WHERE partner_reference = $1 ORDER BY asked_at`,
    [reference ?? '', config.timezone],
  );
  const suggestions = (await listMatches(warehouse, { period: finding.period as string })).filter(
    (m) => m.ledger_reference === reference || (transactionId !== null && m.transaction_id === transactionId),
  );
  // Each history row with the fingerprint of the key that signed it, when the row is signed (issue 28).
  const signers = new Map(
    (
      await warehouse.all<{ row_sha256: string; signer: string | null }>(
        `SELECT row_sha256, signer_key_sha256 AS signer FROM recon_decisions
         WHERE finding_id = $1 AND row_sha256 IS NOT NULL`,
        [findingId],
      )
    ).map((r) => [r.row_sha256, r.signer]),
  );
  const history = (await decisionHistory(warehouse, { findingId }, config.timezone)).map((row) => ({
    ...row,
    signer_key_sha256: row.row_sha256 === null ? null : (signers.get(row.row_sha256) ?? null),
  }));
  return { finding: shown, ledger, sale, landing, lookups, suggestions, history };
}

export async function matchesOf(warehouse: Warehouse, period: string): Promise<MatchRow[]> {
  return listMatches(warehouse, { period });
}

export async function actionsOfPeriod(warehouse: Warehouse, period: string): Promise<ListedAction[]> {
  return listActions(warehouse, { period });
}
