/**
 * The files and folders a configuration makes pinrecon write, checked at the start of every command: any
 * that others could read (written before the CLI set its private umask, or by an older version) is made
 * private again (files 0600, folders 0700), with a warning naming it and the mode it had.
 */
import path from 'node:path';
import type { Config } from '../../config/schema.js';
import { octalMode, protectOwnedPaths, type OwnedPaths } from '../../core/file-modes.js';
import type { Output } from '../../core/output.js';
import { snapshotPath } from '../../core/warehouse.js';
import { landingRoot } from '../extract/landing.js';

/** What pinrecon owns under a configuration. The reports folder may be shared: only `pinrecon-*` files in it. */
export function ownedPaths(config: Config): OwnedPaths {
  const snapshot = snapshotPath(config.database);
  return {
    files: [config.database, `${config.database}.wal`, snapshot, `${snapshot}.wal`, ...extraOwnedFiles(config)],
    trees: [landingRoot(config)],
    sharedFolders: [{ folder: config.reports.outDir, ownedName: /^pinrecon-.*\.(xlsx|eml)$/ }],
  };
}

/** Files beside the database that other parts of pinrecon add (e.g. the key file of `security.keys`). */
function extraOwnedFiles(config: Config): string[] {
  return [path.join(path.dirname(config.database), 'pinrecon.key')];
}

/** Makes everything pinrecon owns under `config` private again, warning once per loose path. */
export function protectOwnedFiles(config: Config, output: Output): number {
  const fixed = protectOwnedPaths(ownedPaths(config), (message) => output.warn(message));
  for (const { path: file, mode, folder } of fixed) {
    output.warn(`${file} was readable by others (mode ${octalMode(mode)}): made private (${folder ? '0700' : '0600'})`);
  }
  return fixed.length;
}
