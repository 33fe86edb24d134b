/**
 * The lines of the journal `actions export --kind journal` writes (issue 30): per approved journal action one
 * entry whose lines balance in each currency, accounts from `journal.accounts` by finding type (a type whose
 * registry row says `ownJournalAccounts`, such as a sales-price difference, never falls back to the cost accounts
 * of `default`), no line of zero, and a stable `line_id` (<action>-<n>) by which a repeat export knows what it
 * wrote. A currency fix reverses the booking in the ledger's currency and books the sale as the provider charged it.
 */
import type { Config } from '../../config/schema.js';
import { periodEnd } from '../../core/calendar.js';
import { ConfigError } from '../../core/errors.js';
import { findingTypeRow } from '../../core/finding-types.js';
import type { Warehouse } from '../../core/warehouse.js';

/** One line of the journal, money as exact decimal text; `debit` or `credit` is null on the other side. */
export interface JournalLine {
  line_id: string;
  action_id: string;
  finding_id: string;
  date: string;
  entry_id: string;
  account: string;
  debit: string | null;
  credit: string | null;
  currency: string | null;
  memo: string;
  reference: string | null;
}

export interface JournalLines {
  lines: JournalLine[];
  /** Actions of the export with nothing to post (a product fix moves no money): no line is written for them. */
  empty: string[];
  /** Every action the export covers (its lines may all have been exported before). */
  actions: string[];
}

type JournalAction = {
  action_id: string;
  finding_id: string;
  exception_type: string | null;
  decision: string | null;
  partner_reference: string | null;
  transaction_id: string | null;
  amount: string | null;
  currency_code: string | null;
  note: string | null;
  gain: boolean | null;
  sale_cost: string | null;
  sale_currency: string | null;
};

/** The journal lines of the period's approved (or already exported) journal actions. */
export async function journalLines(warehouse: Warehouse, config: Config, period: string): Promise<JournalLines> {
  const actions = await warehouse.all<JournalAction>(
    `SELECT a.action_id, a.finding_id, a.exception_type, a.decision, a.partner_reference,
            a.transaction_id::VARCHAR AS transaction_id, a.amount::VARCHAR AS amount, a.currency_code, a.note,
            coalesce(e.difference, e.amount) < 0 AS gain,
            s.partner_cost_price::VARCHAR AS sale_cost, s.sales_currency_code AS sale_currency
     FROM recon_actions a
     LEFT JOIN recon_exceptions e ON e.finding_id = a.finding_id AND e.period = a.period
     LEFT JOIN sales s ON s.transaction_id = a.transaction_id
     WHERE a.period = $1 AND a.kind = 'journal' AND a.status IN ('approved', 'executed')
     ORDER BY a.currency_code NULLS LAST, a.action_id`,
    [period],
  );
  const date = periodEnd(period);
  const result: JournalLines = { lines: [], empty: [], actions: actions.map((a) => a.action_id) };
  for (const a of actions) {
    const type = a.exception_type ?? '';
    const accounts = accountsFor(config, type, a.decision ?? '');
    const transaction = a.transaction_id ? `tx ${a.transaction_id}` : null;
    const memo = (what: string | null) =>
      [what, a.decision, type, a.partner_reference, transaction, a.note].filter(Boolean).join(' · ');
    const legs: Omit<JournalLine, 'line_id' | 'action_id' | 'finding_id' | 'date' | 'entry_id' | 'reference'>[] = [];
    const pair = (
      amount: string | null,
      currency: string | null,
      debit: string,
      credit: string,
      what: string | null,
    ) => {
      if (amount === null || isZero(amount)) return;
      const positive = amount.startsWith('-') ? amount.slice(1) : amount;
      legs.push({ account: debit, debit: positive, credit: null, currency, memo: memo(what) });
      legs.push({ account: credit, debit: null, credit: positive, currency, memo: memo(what) });
    };
    const rebooks =
      findingTypeRow(type)?.rebooksCurrency && a.sale_currency !== null && a.sale_currency !== a.currency_code;
    if (rebooks) {
      // The ledger booked the cost in the wrong currency: take that booking back, then book what was charged.
      pair(a.amount, a.currency_code, accounts.credit, accounts.debit, `reverses the booking in ${a.currency_code}`);
      pair(a.sale_cost, a.sale_currency, accounts.debit, accounts.credit, `books the cost in ${a.sale_currency}`);
    } else if (a.gain === true) pair(a.amount, a.currency_code, accounts.credit, accounts.debit, null);
    else pair(a.amount, a.currency_code, accounts.debit, accounts.credit, null);
    if (legs.length === 0) result.empty.push(a.action_id);
    legs.forEach((leg, i) => {
      const ids = { line_id: `${a.action_id}-${i + 1}`, action_id: a.action_id, finding_id: a.finding_id };
      result.lines.push({ ...ids, date, entry_id: a.action_id, reference: a.partner_reference, ...leg });
    });
  }
  return result;
}

const isZero = (amount: string) => /^-?0*(\.0*)?$/.test(amount.trim());

/**
 * The accounts of a finding type and decision: the most specific of journal.accounts (type:decision, then type,
 * then decision, then default). A type whose registry row says `ownJournalAccounts` needs its own entry: a
 * sales-price difference posted to the cost accounts would misstate both (issue 30).
 */
export function accountsFor(config: Config, findingType: string, decision: string): { debit: string; credit: string } {
  const accounts = config.journal.accounts;
  const own = accounts[`${findingType}:${decision}`] ?? accounts[findingType];
  if (own) return own;
  if (findingTypeRow(findingType)?.ownJournalAccounts) {
    throw new ConfigError(
      `journal.accounts has no entry for ${findingType}: its difference is not a cost, so it is not posted to the ` +
        `cost accounts of "default". Add "${findingType}": { "debit": "…", "credit": "…" } to journal.accounts.`,
    );
  }
  return accounts[decision] ?? accounts.default!;
}
