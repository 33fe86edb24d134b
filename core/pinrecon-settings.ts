/**
 * `pinrecon_settings`: the configured time zone and the pinrecon version, stored in the database (issue 31) so an
 * analyst in another session, tool or zone knows what the calendar's periods and local dates mean; and the digest of
 * the schema last applied (core/schema-apply.ts). Written by every command that opens the file for writing, only
 * when any of them changed.
 */
import { packageVersion } from './paths.js';
import type { SqlSession } from './sql-session.js';

/**
 * Whether the file holds these settings and this schema already. A file from before the table or its column (or an
 * empty one) is not: the query fails or finds no row.
 */
export async function settingsCurrent(session: SqlSession, timezone: string, schemaSha256: string): Promise<boolean> {
  try {
    const row = await session.one(
      `SELECT 1 AS same FROM pinrecon_settings WHERE timezone = $1 AND version = $2 AND schema_sha256 = $3`,
      [timezone, packageVersion(), schemaSha256],
    );
    return row !== undefined;
  } catch {
    return false;
  }
}

/** Writes the settings. The caller found them not current (settingsCurrent): a file is written only on a change. */
export async function recordSettings(session: SqlSession, timezone: string, schemaSha256: string): Promise<void> {
  await session.run(
    `INSERT OR REPLACE INTO pinrecon_settings (id, timezone, version, schema_sha256, updated_at)
     VALUES (1, $1, $2, $3, now())`,
    [timezone, packageVersion(), schemaSha256],
  );
}
