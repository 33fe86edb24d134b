/**
 * Which `security.keys` mode a database keeps its keys in, and the secret of its HMACs. The mode is recorded
 * with the first sales (`key_protection`; `store` for a database older than modes) and wins afterwards: a config
 * that contradicts it is refused (exit 2; `pinrecon keys protect` moves a `store` database). The secret is
 * `PINRECON_KEY_SECRET`, else `pinrecon.key` beside the database; a changed secret is refused by its fingerprint.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../../config/schema.js';
import { ConfigError } from '../../core/errors.js';
import type { KeyMode, KeyProtection } from '../../core/key-protection.js';
import type { Warehouse } from '../../core/warehouse.js';

/** The key file beside a database. */
export function keyFilePath(database: string): string {
  return path.join(path.dirname(database), 'pinrecon.key');
}

/** The secret of the HMACs: PINRECON_KEY_SECRET, else the key file (created when missing). */
export function keySecret(database: string): { secret: Buffer; source: string } {
  const fromEnvironment = process.env.PINRECON_KEY_SECRET;
  if (fromEnvironment) return { secret: Buffer.from(fromEnvironment, 'utf8'), source: 'PINRECON_KEY_SECRET' };
  const file = keyFilePath(database);
  if (!existsSync(file)) writeFileSync(file, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
  return { secret: Buffer.from(readFileSync(file, 'utf8').trim(), 'utf8'), source: file };
}

function fingerprint(secret: Buffer): string {
  return createHmac('sha256', secret).update('pinrecon key secret fingerprint').digest('hex').slice(0, 16);
}

/** The mode recorded in the database, if any. */
export async function recordedKeyMode(
  warehouse: Warehouse,
): Promise<{ mode: KeyMode; fingerprint: string | null } | undefined> {
  return (
    (await warehouse.one<{ mode: KeyMode; fingerprint: string | null }>(
      'SELECT mode, secret_fingerprint AS fingerprint FROM key_protection LIMIT 1',
    )) ?? undefined
  );
}

/** Records (or replaces) the database's mode. Inside the caller's transaction when it has one. */
export async function recordKeyMode(warehouse: Warehouse, mode: KeyMode, secret: Buffer | undefined): Promise<void> {
  await warehouse.run('DELETE FROM key_protection');
  await warehouse.run('INSERT INTO key_protection (mode, secret_fingerprint, decided_at) VALUES ($1, $2, now())', [
    mode,
    secret ? fingerprint(secret) : null,
  ]);
}

/**
 * The protection to write keys under in this database: decided (and recorded) on first use, checked
 * against the config and the secret afterwards.
 */
export async function keyProtectionFor(warehouse: Warehouse, config: Config): Promise<KeyProtection> {
  const wanted = config.security.keys;
  const recorded = await recordedKeyMode(warehouse);
  let mode: KeyMode;
  if (recorded) {
    mode = recorded.mode;
    if (wanted && wanted !== mode) {
      throw new ConfigError(
        `security.keys is "${wanted}", but the database ${config.database} keeps its keys in "${mode}" mode. ` +
          (mode === 'store'
            ? `To stop keeping whole keys, run: pinrecon keys protect --dry-run, then pinrecon keys protect.`
            : `A database never goes back to keeping whole keys: remove security.keys, or set it to "${mode}".`),
        undefined,
        'security.keys',
      );
    }
  } else {
    const held = await warehouse.one<{ n: number }>('SELECT count(*)::INTEGER AS n FROM sales');
    const existing = (held?.n ?? 0) > 0;
    if (existing && wanted && wanted !== 'store') {
      throw new ConfigError(
        `security.keys is "${wanted}", but the database ${config.database} already holds whole keys (it was written ` +
          `before key modes). ` +
          `Run pinrecon keys protect --dry-run, then pinrecon keys protect, to mask them everywhere.`,
        undefined,
        'security.keys',
      );
    }
    mode = wanted ?? (existing ? 'store' : 'hash');
  }
  const secret = mode === 'hash' ? keySecret(config.database) : undefined;
  if (recorded?.fingerprint && secret && fingerprint(secret.secret) !== recorded.fingerprint) {
    throw new ConfigError(
      `The key secret (${secret.source}) is not the one the database ${config.database} was protected with: its key ` +
        `HMACs would no longer match. ` +
        `Restore the original secret (PINRECON_KEY_SECRET or ${keyFilePath(config.database)}).`,
      undefined,
      'security.keys',
    );
  }
  if (!recorded) await recordKeyMode(warehouse, mode, secret?.secret);
  return { mode, ...(secret && { secret: secret.secret }) };
}
