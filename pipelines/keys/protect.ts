/**
 * `pinrecon keys protect [--dry-run]`: moves a database that keeps whole keys (`security.keys` "store", or
 * written before key modes) to "hash" (or "drop"): every landing file is rewritten with its PINs masked
 * (and their HMACs, in hash mode), then `sales.key`/`key_hmac` and `sales_quarantine.raw` are rewritten and
 * the new mode recorded, in one transaction. Protecting twice changes nothing. The dry run counts what it
 * would touch and writes nothing. Also used by `extract --from-landing` to mask archived responses that
 * still hold whole keys before they are loaded into a protected database.
 */
import { chmodSync, renameSync, rmSync, statSync } from 'node:fs';
import type { Config } from '../../config/schema.js';
import { UsageError } from '../../core/errors.js';
import { privateAccess, privateUmask } from '../../core/file-modes.js';
import { protectLandingFile } from '../../core/key-protected-file.js';
import { isMaskedKey, KeyMasker, keyHmac, type KeyMode, type KeyProtection } from '../../core/key-protection.js';
import { maskPin, textMask } from '../../core/masking.js';
import type { Output } from '../../core/output.js';
import { publishSnapshot, Warehouse, type OpenOptions } from '../../core/warehouse.js';
import { sqlString } from '../../core/sql.js';
import { landedSalesFiles, landingRoot } from '../extract/landing.js';
import { keySecret, recordedKeyMode, recordKeyMode } from '../extract/key-mode.js';
import { recordRun } from '../../core/run-trace.js';

export interface KeysProtectSummary {
  dryRun: boolean;
  from: KeyMode | 'unrecorded';
  to: KeyMode;
  /** Rows of `sales` holding a whole key (rewritten, or to rewrite). */
  salesKeys: number;
  /** Quarantined records holding a "key" field with a whole key. */
  quarantineRecords: number;
  /** Landing files: rewritten because they held whole keys, and read in all. */
  landingFiles: { rewritten: number; read: number; keys: number };
  landingDir: string;
}

export async function protectKeys(
  warehouse: Warehouse,
  config: Config,
  options: { dryRun?: boolean },
  output: Output,
): Promise<KeysProtectSummary> {
  const target = config.security.keys ?? 'hash';
  if (target === 'store')
    throw new UsageError(
      'security.keys is "store": keys protect moves a database to "hash" or "drop". Set security.keys to one of them ' +
        '(or remove it for "hash").',
    );
  const recorded = await recordedKeyMode(warehouse);
  if (recorded?.mode === 'drop' && target === 'hash') {
    throw new UsageError(
      'The database keeps keys in "drop" mode: the whole keys are gone, so their HMACs cannot be made. Keep ' +
        'security.keys "drop".',
    );
  }
  const protection: KeyProtection = {
    mode: target,
    ...(target === 'hash' && { secret: keySecret(config.database).secret }),
  };
  const root = landingRoot(config);
  const files = landedSalesFiles(root);
  const summary: KeysProtectSummary = {
    dryRun: Boolean(options.dryRun),
    from: recorded?.mode ?? 'unrecorded',
    to: target,
    salesKeys: Number(
      (await warehouse.one<{ n: string }>(
        `SELECT count(*) AS n FROM sales WHERE key IS NOT NULL AND NOT starts_with(key, '${textMask}')`,
      ))!.n,
    ),
    quarantineRecords: 0,
    landingFiles: { rewritten: 0, read: files.length, keys: 0 },
    landingDir: root,
  };
  // Every raw record is read: the member may be spelled `Key` or `k\u0065y` (issue 34); the quarantine is small.
  const quarantined = await warehouse.all<{ id: string; raw: string }>(
    'SELECT rowid::VARCHAR AS id, raw FROM sales_quarantine WHERE raw IS NOT NULL',
  );
  const rewrittenRaw = quarantined
    .map((row) => ({ id: row.id, raw: maskedText(row.raw, protection) }))
    .filter((row) => row.raw.masked > 0 || row.raw.notStrings > 0);
  summary.quarantineRecords = rewrittenRaw.length;

  const work = async () => {
    for (const [index, file] of files.entries()) {
      const keys = await protectLandingFile(file.path, protection, !options.dryRun);
      summary.landingFiles.keys += keys;
      if (keys > 0) {
        summary.landingFiles.rewritten++;
        if (!options.dryRun)
          await warehouse.run('UPDATE landing_files SET bytes = $2 WHERE path = $1', [
            file.path,
            statSync(file.path).size,
          ]);
      }
      output.progress(
        { label: 'landing files', done: index + 1, total: files.length, facts: { keys: summary.landingFiles.keys } },
        index + 1 === files.length,
      );
    }
    output.clearProgress();
    if (options.dryRun) return summary;
    await warehouse.transaction(async () => {
      await rewriteSalesKeys(warehouse, protection);
      for (const row of rewrittenRaw)
        await warehouse.run('UPDATE sales_quarantine SET raw = $2 WHERE rowid = $1::BIGINT', [row.id, row.raw.text]);
      if (target === 'drop') await warehouse.run('UPDATE sales SET key_hmac = NULL WHERE key_hmac IS NOT NULL');
      await recordKeyMode(warehouse, target, protection.secret);
    });
    return summary;
  };
  if (options.dryRun) return work();
  return recordRun(warehouse, 'keys protect', { to: target }, async (run) => {
    await work();
    run.details = { ...summary };
    return summary;
  });
}

function maskedText(text: string, protection: KeyProtection): { text: string; masked: number; notStrings: number } {
  const masker = new KeyMasker(protection);
  const masked = masker.push(Buffer.from(text, 'utf8')).toString('utf8');
  return { text: masked, masked: masker.masked, notStrings: masker.notStrings };
}

/**
 * Writes the database again into a new file (COPY FROM DATABASE) that replaces it, then publishes the snapshot
 * from it: a DELETE or UPDATE frees pages, and a CHECKPOINT leaves their old bytes in the file, so after `keys
 * protect` every old PIN was still in the file and its snapshot copy (issue 34). The new file is renamed over the
 * old one while the old is still open and locked, so no other process writes into the file being replaced.
 * Returns the sizes before and after.
 */
export async function rewriteDatabaseFile(
  file: string,
  settings: OpenOptions,
): Promise<{ before: number; after: number }> {
  // Named as every temporary beside the database, so a killed run's copy is removed at the next start.
  const fresh = `${file}.tmp-${process.pid}`;
  const before = statSync(file).size;
  rmSync(fresh, { force: true });
  rmSync(`${fresh}.wal`, { force: true });
  const warehouse = await Warehouse.open(file, settings);
  try {
    const current = (await warehouse.one<{ name: string }>('SELECT current_database() AS name'))!.name;
    await warehouse.run('CHECKPOINT');
    // DuckDB creates the file and its write-ahead log with the process umask, as it writes: private from the first
    // byte to the detach, never briefly wider.
    const umask = process.umask(privateUmask);
    try {
      await warehouse.run(`ATTACH ${sqlString(fresh)} AS pinrecon_rewrite`);
      try {
        await warehouse.run(`COPY FROM DATABASE "${current.replaceAll('"', '""')}" TO pinrecon_rewrite`);
      } finally {
        await warehouse.run('DETACH pinrecon_rewrite');
      }
    } finally {
      process.umask(umask);
    }
    chmodSync(fresh, statSync(file).mode & 0o777);
    renameSync(fresh, file);
  } finally {
    warehouse.close();
    rmSync(fresh, { force: true });
    rmSync(`${fresh}.wal`, { force: true });
  }
  const reopened = await Warehouse.open(file, settings);
  try {
    // A whole copy, and no spare: an earlier snapshot kept as the spare would still hold the keys just removed.
    await publishSnapshot(reopened, privateAccess, { keepNoOldCopy: true });
  } finally {
    reopened.close();
  }
  return { before, after: statSync(file).size };
}

/** `sales.key` → masked, `key_hmac` → HMAC (hash mode), computed here: DuckDB has no HMAC. */
async function rewriteSalesKeys(warehouse: Warehouse, protection: KeyProtection): Promise<void> {
  const rows = await warehouse.all<{ id: string; key: string }>(
    `SELECT transaction_id::VARCHAR AS id, key FROM sales WHERE key IS NOT NULL AND NOT starts_with(key, ` +
      `'${textMask}')`,
  );
  if (rows.length === 0) return;
  await warehouse.run(
    'CREATE OR REPLACE TEMP TABLE protected_keys (transaction_id BIGINT, key VARCHAR, key_hmac VARCHAR)',
  );
  const appender = await warehouse.connection.createAppender('protected_keys', 'main', 'temp');
  try {
    for (const row of rows) {
      appender.appendBigInt(BigInt(row.id));
      appender.appendVarchar(isMaskedKey(row.key) ? row.key : maskPin(row.key.trim()));
      if (protection.mode === 'hash') appender.appendVarchar(keyHmac(protection.secret!, row.key));
      else appender.appendNull();
      appender.endRow();
    }
    appender.flushSync();
  } finally {
    appender.closeSync();
  }
  await warehouse.run(
    `UPDATE sales SET key = p.key, key_hmac = p.key_hmac FROM temp.protected_keys p WHERE sales.transaction_id = ` +
      `p.transaction_id`,
  );
  await warehouse.run('DROP TABLE temp.protected_keys');
}
