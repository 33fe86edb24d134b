/**
 * The detail sheets of a period's workbook, as data: for each sheet its title, its columns (header,
 * kind, width, SQL expression) and the rows it holds (a table, a condition and a total order, so the same
 * data always gives the same cells). PINs are masked here, in SQL, so a whole `key` is never selected.
 */
import { periodEnd, periodStart } from '../core/calendar.js';
import { inPeriodSql, ledgerRejectsOfPeriodSql } from '../core/period-sql.js';
import { sqlString } from '../core/sql.js';
import { maskedKeySql, maskedRawRecordSql } from '../core/masking.js';
import { findingAmountSql, findingExposureSql } from './finding-amount.js';
import { localTimeSql } from '../core/zoned-time.js';
import { actionsSheet } from './actions-sheet.js';
import { carriedForwardSheet } from './carried-forward-sheet.js';
import { type DetailSheet, money, type SheetColumn } from './sheet-spec.js';
import { bestSuggestionColumn, suggestedMatchesSheet } from './match-sheet.js';
import { findingFamilies } from '../core/finding-types.js';

/**
 * The decision columns every finding sheet ends with (README "Acting on findings"), after `Finding ID`:
 * filled with the current decision, edited by the controller, read back by `findings import`. Then, for reading
 * only (grey, never read back): who decided and when, in the configured zone, and `Decision ref`, the
 * recon_decisions row the row was written with, by which an import tells a row left as written from one
 * edited over a decision taken since.
 */
export function decisionColumns(timezone: string): SheetColumn[] {
  return [
    // Decision to Decided by adjacent and narrow enough to print beside the key columns at 8 pt (issue 30 item 6).
    { key: 'decision', header: 'Decision', kind: 'text', sql: 'decision', width: 12 },
    { key: 'decision_note', header: 'Note', kind: 'text', sql: 'decision_note', width: 20 },
    { key: 'owner', header: 'Owner', kind: 'text', sql: 'owner', width: 12 },
    { key: 'decided_by', header: 'Decided by', kind: 'text', sql: 'decided_by', width: 14, readOnly: true },
    { key: 'expected_clear_by', header: 'Expected clear by', kind: 'date', sql: 'expected_clear_by', width: 14 },
    {
      key: 'decided_at',
      header: 'Decided at',
      kind: 'text',
      sql: localTimeSql('decided_at', timezone, { zoned: true }),
      width: 36,
      readOnly: true,
    },
    { key: 'decision_ref', header: 'Decision ref', kind: 'text', sql: 'decision_sha256', width: 12, readOnly: true },
  ];
}

/**
 * The finding families compared side by side, each on its own sheet, in the registry's order (core/finding-types.ts);
 * `unredeemed` has a sheet of its own layout below.
 */
export const findingFamilySheets = findingFamilies
  .filter((f) => f.layout === 'compared')
  .map((f) => ({
    family: f.family,
    title: f.sheet,
    description: f.description,
    proofColumn: f.proofColumn,
    suggestionColumn: f.suggestionColumn,
  }));
const unredeemedSheet = findingFamilies.find((f) => f.layout === 'aging')!;

/** The amount of a finding sheet's row: its cost bridge effect (finding-amount.ts). */
const findingAmount = (header: string) =>
  money('finding_amount', header, findingAmountSql('recon_exceptions'), 'currency', 14);

/**
 * What a finding sheet prints on every page: what the finding is, its amounts, proof and age, and the decision on
 * it with its owner and who decided (issue 30 item 6); the Finding ID stays on screen, the reference prints whole.
 */
const findingPrintColumns = [
  'exception_type',
  'partner_reference',
  'finding_amount',
  'difference',
  'proof',
  'detected_age',
  'decision',
  'decision_note',
  'owner',
  'decided_by',
];

function findingSheet(
  period: string,
  timezone: string,
  { family, title, description, proofColumn, suggestionColumn }: (typeof findingFamilySheets)[number],
): DetailSheet {
  return {
    title,
    description,
    // The key columns first (they repeat at the left of every printed page), then the rest of the data, then the
    // decision.
    columns: [
      { key: 'exception_type', header: 'Finding type', kind: 'text', sql: 'exception_type', width: 18 },
      { key: 'partner_reference', header: 'Partner reference', kind: 'text', sql: 'partner_reference', width: 20 },
      findingAmount('Amount'),
      money('difference', 'Difference', 'difference', 'currency', 13),
      // the proof of absence (windows | lookup | unproven), on the sheets the registry gives it
      ...(proofColumn ? [{ key: 'proof', header: 'Proof', kind: 'text' as const, sql: 'proof', width: 10 }] : []),
      { key: 'transaction_id', header: 'Transaction ID', kind: 'integer', sql: 'transaction_id', width: 15 },
      { key: 'product_id', header: 'Product ID', kind: 'integer', sql: 'product_id', width: 11 },
      { key: 'currency', header: 'Currency', kind: 'text', sql: 'currency_code', width: 9 },
      money('ledger_value', 'Ledger value', 'ledger_value', 'currency'),
      money('provider_value', 'Provider value', 'provider_value', 'currency'),
      money('bridge_amount', 'Cost bridge effect', 'amount', 'currency'),
      { key: 'order_status', header: 'Ledger status', kind: 'text', sql: 'order_status', width: 13 },
      { key: 'status', header: 'Provider status', kind: 'text', sql: 'status', width: 22 },
      { key: 'status_class', header: 'Status class', kind: 'text', sql: 'status_class', width: 12 },
      { key: 'transaction_at', header: 'Provider date', kind: 'datetime', sql: 'transaction_at', width: 19 },
      { key: 'paid_at', header: 'Ledger paid at', kind: 'datetime', sql: 'paid_at', width: 19 },
      { key: 'pin', header: 'PIN (last 4)', kind: 'text', sql: maskedKeySql('key_last4', 'last4'), width: 12 },
      { key: 'ledger_source', header: 'Ledger line', kind: 'text', sql: 'ledger_source', width: 28 },
      { key: 'details', header: 'Details', kind: 'text', sql: 'details', width: 60 },
      // every field in which the two sides differ (issue 29)
      { key: 'differences', header: 'Differences', kind: 'text', sql: 'differences', width: 40 },
      // a row's best suggested match (issue 29), on the sheets the registry gives it
      ...(suggestionColumn ? [bestSuggestionColumn] : []),
      { key: 'first_detected_at', header: 'First detected', kind: 'datetime', sql: 'first_detected_at', width: 19 },
      { key: 'finding_id', header: 'Finding ID', kind: 'text', sql: 'finding_id', width: 33 },
      // Printed first of the print area (issue 30 item 6): never empty, so LibreOffice prints every row — it stops
      // at the last row holding something in the area, and undecided rows hold nothing in the decision columns.
      // Issue 30: every finding ages, not only keys: days from its first detection (local date) to the as-of.
      {
        key: 'detected_age',
        header: 'Age (days)',
        kind: 'integer',
        sql: `greatest(date_diff('day', CAST(timezone(${sqlString(timezone)}, first_detected_at) AS DATE), as_of), 0)`,
        width: 7,
      },
      ...decisionColumns(timezone),
    ],
    table: 'recon_exceptions',
    where: `period = ${sqlString(period)} AND family = ${sqlString(family)}`,
    orderBy: 'exception_type, partner_reference NULLS LAST, transaction_id NULLS LAST, finding_id',
    printColumns: findingPrintColumns,
  };
}

/** The findings that differ from the period's sign-off (recon_signoff_changes of that sign-off). */
export function signoffChangesSheet(period: string, signoffId: string): DetailSheet {
  return {
    title: 'Changed since sign-off',
    description:
      'findings new, cleared or changed (amounts, statuses or decision) since the period was signed off, with the ' +
      'amount delta',
    columns: [
      { key: 'change', header: 'Change', kind: 'text', sql: 'change', width: 10 },
      { key: 'exception_type', header: 'Finding type', kind: 'text', sql: 'exception_type', width: 24 },
      { key: 'partner_reference', header: 'Partner reference', kind: 'text', sql: 'partner_reference', width: 22 },
      { key: 'transaction_id', header: 'Transaction ID', kind: 'integer', sql: 'transaction_id', width: 15 },
      { key: 'currency', header: 'Currency', kind: 'text', sql: 'currency_code', width: 9 },
      money('signed_amount', 'Amount as signed', 'signed_amount', 'currency'),
      money('current_amount', 'Amount now', 'current_amount', 'currency'),
      money('amount_delta', 'Delta', 'amount_delta', 'currency'),
      { key: 'signed_details', header: 'Details as signed', kind: 'text', sql: 'signed_details', width: 50 },
      { key: 'current_details', header: 'Details now', kind: 'text', sql: 'current_details', width: 50 },
      { key: 'signed_decision', header: 'Decision as signed', kind: 'text', sql: 'signed_decision', width: 15 },
      { key: 'current_decision', header: 'Decision now', kind: 'text', sql: 'current_decision', width: 15 },
      { key: 'finding_id', header: 'Finding ID', kind: 'text', sql: 'finding_id', width: 34 },
    ],
    table: 'recon_signoff_changes',
    where: `period = ${sqlString(period)} AND signoff_id = ${sqlString(signoffId)}`,
    orderBy: 'change, exception_type, partner_reference NULLS LAST, finding_id',
  };
}

/** Every detail sheet of the period's workbook, in order (the Summary comes before them). */
export function detailSheets(period: string, timezone: string): DetailSheet[] {
  const p = sqlString(period);
  return [
    ...findingFamilySheets.map((sheet) => findingSheet(period, timezone, sheet)),
    {
      title: unredeemedSheet.sheet,
      description: unredeemedSheet.description,
      columns: [
        { key: 'exception_type', header: 'Finding type', kind: 'text', sql: 'exception_type', width: 16 },
        { key: 'partner_reference', header: 'Partner reference', kind: 'text', sql: 'partner_reference', width: 20 },
        // Its cost at stake is its exposure, apart from its amount (the bridge effect, below; issue 30).
        money('exposure', 'Exposure (cost at stake)', findingExposureSql('recon_exceptions'), 'currency', 14),
        { key: 'transaction_id', header: 'Transaction ID', kind: 'integer', sql: 'transaction_id', width: 15 },
        { key: 'product_id', header: 'Product ID', kind: 'integer', sql: 'product_id', width: 11 },
        { key: 'status', header: 'Provider status', kind: 'text', sql: 'status', width: 22 },
        { key: 'status_class', header: 'Status class', kind: 'text', sql: 'status_class', width: 12 },
        { key: 'transaction_at', header: 'Provider date', kind: 'datetime', sql: 'transaction_at', width: 19 },
        { key: 'pin', header: 'PIN (last 4)', kind: 'text', sql: maskedKeySql('key_last4', 'last4'), width: 12 },
        { key: 'aging_bucket', header: 'Aging bucket', kind: 'text', sql: 'aging_bucket', width: 13 },
        { key: 'currency', header: 'Currency', kind: 'text', sql: 'currency_code', width: 9 },
        money('provider_value', 'Provider cost', 'provider_value', 'currency'),
        money('bridge_amount', 'Cost bridge effect', 'amount', 'currency'),
        { key: 'as_of', header: 'As of', kind: 'date', sql: 'as_of', width: 11 },
        { key: 'details', header: 'Details', kind: 'text', sql: 'details', width: 60 },
        { key: 'first_detected_at', header: 'First detected', kind: 'datetime', sql: 'first_detected_at', width: 19 },
        { key: 'finding_id', header: 'Finding ID', kind: 'text', sql: 'finding_id', width: 33 },
        // Never empty, first of the print area: every row prints (as on the finding sheets above).
        { key: 'age_days', header: 'Age (days)', kind: 'integer', sql: 'age_days', width: 7 },
        ...decisionColumns(timezone),
      ],
      table: 'recon_exceptions',
      where: `period = ${p} AND family = ${sqlString(unredeemedSheet.family)}`,
      orderBy: 'age_days DESC NULLS LAST, transaction_id NULLS LAST, finding_id',
      printColumns: [
        'exception_type',
        'partner_reference',
        'exposure',
        'age_days',
        'decision',
        'decision_note',
        'owner',
        'decided_by',
      ],
    },
    // Issue 29: near-miss references to confirm or reject.
    suggestedMatchesSheet(period, timezone),
    // Issue 15: every action of the period and where it stands.
    actionsSheet(period),
    // Issue 30: what earlier periods left open.
    carriedForwardSheet(period),
    {
      title: 'Sales',
      description: `provider sales dated in ${period} (${timezone})`,
      columns: [
        { key: 'transaction_id', header: 'Transaction ID', kind: 'integer', sql: 'transaction_id', width: 15 },
        { key: 'partner_reference', header: 'Partner reference', kind: 'text', sql: 'partner_reference', width: 22 },
        { key: 'transaction_at', header: 'Date', kind: 'datetime', sql: 'transaction_at', width: 19 },
        // The printed columns first (issue 30 item 6: the sheet printed at about 5 pt); the rest stay on screen.
        money('sales_price', 'Sales price', 'sales_price', 'currency'),
        money('partner_cost_price', 'Partner cost', 'partner_cost_price', 'currency'),
        money('margin', 'Margin', 'sales_price - partner_cost_price', 'currency'),
        { key: 'status_class', header: 'Status class', kind: 'text', sql: 'status_class', width: 12 },
        { key: 'product_name', header: 'Product', kind: 'text', sql: 'product_name', width: 28 },
        { key: 'currency', header: 'Currency', kind: 'text', sql: 'sales_currency_code', width: 9 },
        { key: 'product_id', header: 'Product ID', kind: 'integer', sql: 'product_id', width: 11 },
        { key: 'status', header: 'Status', kind: 'text', sql: 'status', width: 22 },
        { key: 'country_code', header: 'Country', kind: 'text', sql: 'country_code', width: 8 },
        { key: 'pin', header: 'PIN (last 4)', kind: 'text', sql: maskedKeySql('key', 'key'), width: 12 },
        {
          key: 'key_sent_to_customer',
          header: 'Key sent to customer',
          kind: 'boolean',
          sql: 'key_sent_to_customer',
          width: 12,
        },
        { key: 'first_seen_at', header: 'First seen', kind: 'datetime', sql: 'first_seen_at', width: 19 },
        { key: 'last_seen_at', header: 'Last seen', kind: 'datetime', sql: 'last_seen_at', width: 19 },
      ],
      table: 'sales',
      where: inPeriodSql('transaction_at', period, timezone),
      orderBy: 'transaction_at, transaction_id',
      printColumns: [
        'transaction_id',
        'partner_reference',
        'transaction_at',
        'sales_price',
        'partner_cost_price',
        'margin',
        'status_class',
        'product_name',
      ],
    },
    {
      title: 'Ledger rejects',
      description: `ledger lines not accepted (of files with orders of ${period} or no accepted line)`,
      columns: [
        { key: 'source_file', header: 'File', kind: 'text', sql: 'source_file', width: 40 },
        { key: 'source_line', header: 'Line', kind: 'integer', sql: 'source_line', width: 8 },
        { key: 'reason', header: 'Reason', kind: 'text', sql: 'reason', width: 50 },
        { key: 'raw', header: 'Line as read', kind: 'text', sql: 'raw', width: 80 },
      ],
      table: 'ledger_rejects',
      where: ledgerRejectsOfPeriodSql(period, timezone),
      orderBy: 'source_file, source_line, reason',
    },
    {
      title: 'API quarantine',
      description: `records of ${period}'s extract windows that could not be loaded as received`,
      columns: [
        { key: 'window_start', header: 'Window start', kind: 'date', sql: 'window_start', width: 12 },
        { key: 'by_flag', header: 'By', kind: 'text', sql: 'by_flag', width: 8 },
        { key: 'transaction_id', header: 'Transaction ID', kind: 'integer', sql: 'transaction_id', width: 15 },
        { key: 'reason', header: 'Reason', kind: 'text', sql: 'reason', width: 50 },
        { key: 'landing_path', header: 'Landing file', kind: 'text', sql: 'landing_path', width: 50 },
        { key: 'record_index', header: 'Record', kind: 'integer', sql: 'record_index', width: 8 },
        {
          key: 'raw',
          header: 'Record as received (PIN masked)',
          kind: 'text',
          sql: maskedRawRecordSql('raw'),
          width: 80,
        },
        { key: 'quarantined_at', header: 'Quarantined at', kind: 'datetime', sql: 'quarantined_at', width: 19 },
      ],
      table: 'sales_quarantine',
      where: `window_start BETWEEN DATE ${sqlString(periodStart(period))} AND DATE ${sqlString(periodEnd(period))}`,
      orderBy: 'landing_path, record_index, reason',
    },
  ];
}
