/**
 * SQL predicates placing rows in an accounting period, as the wall clock of the configured timezone reads it.
 * Shared by the report's sheets and facts, the close and the month-end job.
 */
import { addMonths, periodStart } from './calendar.js';
import { sqlString } from './sql.js';

/** SQL: the TIMESTAMPTZ `column` falls in `period` as the wall clock of `timezone` reads it. */
export function inPeriodSql(column: string, period: string, timezone: string): string {
  const localMidnight = (date: string) =>
    `timezone(${sqlString(timezone)}, TIMESTAMP ${sqlString(`${date} 00:00:00`)})`;
  return (
    `${column} >= ${localMidnight(periodStart(period))} AND ` +
    `${column} < ${localMidnight(periodStart(addMonths(period, 1)))}`
  );
}

/** SQL over ledger_rejects: the file has no accepted line at all, so its rejects cannot be dated into any period. */
export const unplacedLedgerRejectSql = 'file_hash NOT IN (SELECT DISTINCT file_hash FROM ledger)';

/**
 * SQL over ledger_rejects: the rejects a period's report lists. A rejected line has no trustworthy date,
 * so it is placed by its file: the rejects of every file holding orders paid in the period, and of every
 * file with no accepted line at all (a broken import, e.g. the wrong delimiter or decimal separator,
 * belongs to no period, so every report shows it until the file is imported again with the right settings).
 */
export function ledgerRejectsOfPeriodSql(period: string, timezone: string): string {
  return (
    `(file_hash IN (SELECT DISTINCT file_hash FROM ledger WHERE ${inPeriodSql('paid_at', period, timezone)}) ` +
    `OR ${unplacedLedgerRejectSql})`
  );
}
