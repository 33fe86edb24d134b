/**
 * What a configuration makes pinrecon keep private, checked at the start of every command: a `database` that is
 * not a DuckDB file is refused before anything touches it or the key beside it; the database, its log and the key
 * file (they hold keys) are kept 0600; the temporaries a killed run left are removed. Nothing else has its mode
 * changed: the snapshot and exports get theirs (analysts.group) when written, and no folder is walked (issue 34).
 */
import path from 'node:path';
import type { Config } from '../../config/schema.js';
import { ConfigError } from '../../core/errors.js';
import {
  type FileAccess,
  groupId,
  keepPrivate,
  looksLikeDuckDb,
  octalMode,
  privateAccess,
  removeDeadTemporaries,
} from '../../core/file-modes.js';
import type { Output } from '../../core/output.js';
import { sparePath } from '../../core/snapshot-copy.js';
import { snapshotPath } from '../../core/warehouse.js';
import { keyFilePath } from '../extract/key-mode.js';

/** The files that hold keys and are kept private by every command: the database, its log, the key file. */
export function secretFiles(config: Config): string[] {
  return [config.database, `${config.database}.wal`, keyFilePath(config.database)];
}

/** The access of what analysts read (the snapshot, exports): 0640 with `analysts.group`, else 0600. */
export function analystsAccess(config: Config): FileAccess {
  const group = config.analysts.group;
  if (group === undefined) return privateAccess;
  const gid = groupId(group);
  if (gid === undefined)
    throw new ConfigError(
      `analysts.group: there is no group "${group}" on this machine. ` +
        'Name an existing group (getent group) whose members may read the snapshot and exports.',
      undefined,
      'analysts.group',
    );
  return { mode: 0o640, gid };
}

/**
 * Refuses a `database` that is not a DuckDB file, removes dead temporaries, and makes the key-holding files
 * private again (warning once each). Returns how many modes it changed.
 */
export function protectOwnedFiles(config: Config, output: Output): number {
  if (config.database !== ':memory:' && looksLikeDuckDb(config.database) === false) {
    throw new ConfigError(
      `database: ${path.resolve(config.database)} is not a DuckDB file; pinrecon leaves it (and any pinrecon.key ` +
        `beside it) untouched. Point "database" (or PINRECON_DATABASE) at pinrecon's DuckDB file, or at a path ` +
        'where it may create one.',
      undefined,
      'database',
    );
  }
  removeLeftovers(config, output);
  let changed = 0;
  for (const file of secretFiles(config)) {
    const was = keepPrivate(file, (message) => output.warn(message));
    if (was === undefined) continue;
    output.warn(`${file} was readable by others (mode ${octalMode(was)}): made private (0600)`);
    changed++;
  }
  return changed;
}

/**
 * A killed run's `….tmp-<pid>` beside the database, the snapshot and its spare, and in the reports folder (pinrecon's
 * names).
 */
function removeLeftovers(config: Config, output: Output): void {
  const database = path.basename(config.database);
  const snapshot = path.basename(snapshotPath(config.database));
  const spare = path.basename(sparePath(snapshotPath(config.database)));
  const removed = [
    ...removeDeadTemporaries(path.dirname(config.database), (name) => [database, snapshot, spare].includes(name)),
    ...removeDeadTemporaries(config.reports.outDir, (name) =>
      /^(pinrecon-.*\.(xlsx|eml|csv)|recon_\w+-\d{4}-\d{2}\..+)$/.test(name),
    ),
  ];
  for (const file of removed) output.info(`removed ${file}, left by a run that was stopped`);
}
