/**
 * A sign-off's manifest: the pinrecon version, a hash of the SQL, the sha256 of every landing and ledger file the
 * period's figures came from, the decision chain's head and the materiality thresholds; `verify` checks it later.
 */
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../../config/schema.js';
import { chainHead } from '../../core/decision-chain.js';
import { packageRoot, sqlDir } from '../../core/paths.js';
import { inPeriodSql } from '../../core/period-sql.js';
import type { Warehouse } from '../../core/warehouse.js';

export interface Manifest {
  pinreconVersion: string;
  /** sha256 over every file of sql/ (relative path and bytes, in name order). */
  sqlSha256: string;
  landingFiles: { path: string; sha256: string | null }[];
  ledgerFiles: { path: string; sha256: string | null; importedSha256: string }[];
  /**
   * The database's folder when signed: `verify` reads a file under it relative to the database's folder now, so
   * a database copied with its files is checked against the copy's files (issue 28).
   */
  databaseDir?: string;
  /** The last row of the period's decision chain when signed (recon_decisions): `verify` checks it is still there. */
  decisionChainHead?: { position: number; sha256: string | null };
  /**
   * `reconciliation.materiality` when signed: sealed with the manifest, it is what an audit pack's verify.mjs holds
   * the rule's unsigned acceptances to (issue 34), having no config of its own.
   */
  materiality?: Config['reconciliation']['materiality'];
}

export async function buildManifest(
  warehouse: Warehouse,
  config: Config,
  period: string,
  reconcileRunId: string,
): Promise<Manifest> {
  const version = (JSON.parse(readFileSync(path.join(packageRoot(), 'package.json'), 'utf8')) as { version: string })
    .version;
  const landing = await warehouse.all<{ path: string }>(
    `SELECT DISTINCT landing_path AS path FROM extract_windows
     WHERE strftime(window_start, '%Y-%m') = $1 OR strftime(window_end, '%Y-%m') = $1
     UNION
     SELECT path FROM landing_files WHERE run_id = $2
     ORDER BY 1`,
    [period, reconcileRunId],
  );
  const ledger = await warehouse.all<{ source_file: string; file_hash: string }>(
    `SELECT DISTINCT source_file, file_hash FROM ledger WHERE ${inPeriodSql('paid_at', period, config.timezone)} ` +
      `ORDER BY 1, 2`,
  );
  const landingFiles: Manifest['landingFiles'] = [];
  for (const { path: file } of landing) landingFiles.push({ path: file, sha256: await fileSha256(file) });
  const ledgerFiles: Manifest['ledgerFiles'] = [];
  for (const l of ledger)
    ledgerFiles.push({ path: l.source_file, sha256: await fileSha256(l.source_file), importedSha256: l.file_hash });
  const head = await chainHead(warehouse, period);
  return {
    pinreconVersion: version,
    sqlSha256: sqlModelsSha256(),
    databaseDir: path.dirname(path.resolve(config.database)),
    landingFiles,
    ledgerFiles,
    decisionChainHead: head,
    materiality: config.reconciliation.materiality,
  };
}

/** sha256 of a file's bytes, or null when it is no longer there. */
export async function fileSha256(file: string): Promise<string | null> {
  if (!existsSync(file)) return null;
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** One hash of the SQL that produced the figures: every file under sql/, path and bytes, in name order. */
export function sqlModelsSha256(root: string = sqlDir()): string {
  const hash = createHash('sha256');
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const file = path.join(dir, name);
      if (statSync(file).isDirectory()) walk(file);
      else
        hash
          .update(`${path.relative(root, file).split(path.sep).join('/')}\0`)
          .update(readFileSync(file))
          .update('\0');
    }
  };
  walk(root);
  return hash.digest('hex');
}
