/**
 * What the database holds about the findings a batch of decisions names: each finding's current decision, and
 * the decisions a workbook was written with (by its Decision refs), read in a few scans however many rows.
 */
import { textTable } from '../../core/text-table.js';
import type { Warehouse } from '../../core/warehouse.js';
import { localTimeSql } from '../../core/zoned-time.js';

/** The finding as the database has it now. */
export type CurrentFinding = {
  finding_id: string;
  period: string;
  decision: string | null;
  decision_note: string | null;
  owner: string | null;
  expected_clear_by: string | null;
  decided_by: string | null;
  decided_at: string | null;
  decision_sha256: string | null;
};

/** A decision as a workbook was written with it (the recon_decisions row its Decision ref names). */
export type WrittenDecision = {
  finding_id: string;
  decision: string;
  note: string | null;
  owner: string | null;
  expected_clear_by: string | null;
};

/**
 * The current findings among `ids`, with their current decision. With the workbook's period known, that
 * period's findings are read whole (one scan), and only the ids not among them are looked up elsewhere.
 */
export async function currentFindings(
  warehouse: Warehouse,
  ids: string[],
  period: string | null,
  timezone: string,
): Promise<Map<string, CurrentFinding>> {
  const columns = `finding_id, period, decision, decision_note, owner,
    expected_clear_by::VARCHAR AS expected_clear_by, decided_by,
    ${localTimeSql('decided_at', timezone, { zoned: true })} AS decided_at, decision_sha256`;
  const found = new Map<string, CurrentFinding>();
  if (period !== null) {
    for (const row of await warehouse.all<CurrentFinding>(`SELECT ${columns} FROM recon_exceptions WHERE period = $1`, [
      period,
    ]))
      found.set(row.finding_id, row);
  }
  const rest = [...new Set(ids)].filter((id) => !found.has(id));
  if (rest.length > 0) {
    await textTable(
      warehouse,
      'decision_finding_ids',
      ['finding_id'],
      rest.map((id) => [id]),
    );
    const rows = await warehouse.all<CurrentFinding>(
      `SELECT ${columns} FROM recon_exceptions WHERE finding_id IN (SELECT finding_id FROM decision_finding_ids)`,
    );
    await warehouse.run('DROP TABLE decision_finding_ids');
    for (const row of rows) found.set(row.finding_id, row);
  }
  return found;
}

/** The decisions named by a workbook's Decision refs (recon_decisions rows by row_sha256). */
export async function writtenDecisions(warehouse: Warehouse, refs: string[]): Promise<Map<string, WrittenDecision>> {
  const found = new Map<string, WrittenDecision & { row_sha256: string }>();
  if (refs.length === 0) return found;
  await textTable(
    warehouse,
    'decision_refs',
    ['row_sha256'],
    [...new Set(refs)].map((ref) => [ref]),
  );
  const rows = await warehouse.all<WrittenDecision & { row_sha256: string }>(
    `SELECT row_sha256, finding_id, decision, note, owner, expected_clear_by::VARCHAR AS expected_clear_by
     FROM recon_decisions WHERE row_sha256 IN (SELECT row_sha256 FROM decision_refs)`,
  );
  await warehouse.run('DROP TABLE decision_refs');
  for (const row of rows) found.set(row.row_sha256, row);
  return found;
}

/** The one period all these findings belong to, or null when they span none or several. */
export function onlyPeriod(current: Map<string, CurrentFinding>): string | null {
  const periods = new Set([...current.values()].map((f) => f.period));
  return periods.size === 1 ? [...periods][0]! : null;
}
