/**
 * `pinrecon_settings`: the configured time zone and the pinrecon version, stored in the database (issue 31) so an
 * analyst in another session, tool or zone knows what the calendar's periods and local dates mean. Written by
 * every command that opens the file for writing, only when either changed.
 */
import { packageVersion } from './paths.js';
import type { SqlSession } from './sql-session.js';

export async function recordSettings(warehouse: SqlSession, timezone: string): Promise<void> {
  const version = packageVersion();
  const same = await warehouse.one(`SELECT 1 AS same FROM pinrecon_settings WHERE timezone = $1 AND version = $2`, [
    timezone,
    version,
  ]);
  if (same) return;
  await warehouse.run(
    `INSERT OR REPLACE INTO pinrecon_settings (id, timezone, version, updated_at) VALUES (1, $1, $2, now())`,
    [timezone, version],
  );
}
