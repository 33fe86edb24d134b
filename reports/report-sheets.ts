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
import { datetime, type DetailSheet, integer, money, type SheetColumn, text } from './sheet-spec.js';
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
    text('decision', 'Decision', 12),
    text('decision_note', 'Note', 20),
    text('owner', 'Owner', 12),
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
      text('exception_type', 'Finding type', 18),
      text('partner_reference', 'Partner reference', 20),
      findingAmount('Amount'),
      money('difference', 'Difference', 'difference', 'currency', 13),
      // the proof of absence (windows | lookup | unproven), on the sheets the registry gives it
      ...(proofColumn ? [text('proof', 'Proof', 10)] : []),
      integer('transaction_id', 'Transaction ID', 15),
      integer('product_id', 'Product ID', 11),
      text('currency', 'Currency', 9, 'currency_code'),
      money('ledger_value', 'Ledger value', 'ledger_value', 'currency'),
      money('provider_value', 'Provider value', 'provider_value', 'currency'),
      money('bridge_amount', 'Cost bridge effect', 'amount', 'currency'),
      text('order_status', 'Ledger status', 13),
      text('status', 'Provider status', 22),
      text('status_class', 'Status class', 12),
      datetime('transaction_at', 'Provider date'),
      datetime('paid_at', 'Ledger paid at'),
      text('pin', 'PIN (last 4)', 12, maskedKeySql('key_last4', 'last4')),
      text('ledger_source', 'Ledger line', 28),
      text('details', 'Details', 60),
      // every field in which the two sides differ (issue 29)
      text('differences', 'Differences', 40),
      // a row's best suggested match (issue 29), on the sheets the registry gives it
      ...(suggestionColumn ? [bestSuggestionColumn] : []),
      datetime('first_detected_at', 'First detected'),
      text('finding_id', 'Finding ID', 33),
      // Printed first of the print area (issue 30 item 6): never empty, so LibreOffice prints every row — it stops
      // at the last row holding something in the area, and undecided rows hold nothing in the decision columns.
      // Issue 30: every finding ages, not only keys: days from its first detection (local date) to the as-of.
      integer(
        'detected_age',
        'Age (days)',
        7,
        `greatest(date_diff('day', CAST(timezone(${sqlString(timezone)}, first_detected_at) AS DATE), as_of), 0)`,
      ),
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
      text('change', 'Change', 10),
      text('exception_type', 'Finding type', 24),
      text('partner_reference', 'Partner reference', 22),
      integer('transaction_id', 'Transaction ID', 15),
      text('currency', 'Currency', 9, 'currency_code'),
      money('signed_amount', 'Amount as signed', 'signed_amount', 'currency'),
      money('current_amount', 'Amount now', 'current_amount', 'currency'),
      money('amount_delta', 'Delta', 'amount_delta', 'currency'),
      text('signed_details', 'Details as signed', 50),
      text('current_details', 'Details now', 50),
      text('signed_decision', 'Decision as signed', 15),
      text('current_decision', 'Decision now', 15),
      text('finding_id', 'Finding ID', 34),
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
        text('exception_type', 'Finding type', 16),
        text('partner_reference', 'Partner reference', 20),
        // Its cost at stake is its exposure, apart from its amount (the bridge effect, below; issue 30).
        money('exposure', 'Exposure (cost at stake)', findingExposureSql('recon_exceptions'), 'currency', 14),
        integer('transaction_id', 'Transaction ID', 15),
        integer('product_id', 'Product ID', 11),
        text('status', 'Provider status', 22),
        text('status_class', 'Status class', 12),
        datetime('transaction_at', 'Provider date'),
        text('pin', 'PIN (last 4)', 12, maskedKeySql('key_last4', 'last4')),
        text('aging_bucket', 'Aging bucket', 13),
        text('currency', 'Currency', 9, 'currency_code'),
        money('provider_value', 'Provider cost', 'provider_value', 'currency'),
        money('bridge_amount', 'Cost bridge effect', 'amount', 'currency'),
        { key: 'as_of', header: 'As of', kind: 'date', sql: 'as_of', width: 11 },
        text('details', 'Details', 60),
        // a key whose sale is one of a pair has that pair's differences too (issue 29: every finding of a pair)
        text('differences', 'Differences', 40),
        datetime('first_detected_at', 'First detected'),
        text('finding_id', 'Finding ID', 33),
        // Never empty, first of the print area: every row prints (as on the finding sheets above).
        integer('age_days', 'Age (days)', 7),
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
        integer('transaction_id', 'Transaction ID', 15),
        text('partner_reference', 'Partner reference', 22),
        datetime('transaction_at', 'Date'),
        // The printed columns first (issue 30 item 6: the sheet printed at about 5 pt); the rest stay on screen.
        money('sales_price', 'Sales price', 'sales_price', 'currency'),
        money('partner_cost_price', 'Partner cost', 'partner_cost_price', 'currency'),
        money('margin', 'Margin', 'sales_price - partner_cost_price', 'currency'),
        text('status_class', 'Status class', 12),
        text('product_name', 'Product', 28),
        text('currency', 'Currency', 9, 'sales_currency_code'),
        integer('product_id', 'Product ID', 11),
        text('status', 'Status', 22),
        text('country_code', 'Country', 8),
        text('pin', 'PIN (last 4)', 12, maskedKeySql('key', 'key')),
        {
          key: 'key_sent_to_customer',
          header: 'Key sent to customer',
          kind: 'boolean',
          sql: 'key_sent_to_customer',
          width: 12,
        },
        datetime('first_seen_at', 'First seen'),
        datetime('last_seen_at', 'Last seen'),
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
        text('source_file', 'File', 40),
        integer('source_line', 'Line', 8),
        text('reason', 'Reason', 50),
        text('raw', 'Line as read', 80),
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
        text('by_flag', 'By', 8),
        integer('transaction_id', 'Transaction ID', 15),
        text('reason', 'Reason', 50),
        text('landing_path', 'Landing file', 50),
        integer('record_index', 'Record', 8),
        text('raw', 'Record as received (PIN masked)', 80, maskedRawRecordSql('raw')),
        datetime('quarantined_at', 'Quarantined at'),
      ],
      table: 'sales_quarantine',
      where: `window_start BETWEEN DATE ${sqlString(periodStart(period))} AND DATE ${sqlString(periodEnd(period))}`,
      orderBy: 'landing_path, record_index, reason',
    },
  ];
}
