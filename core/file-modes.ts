/**
 * What pinrecon writes is private to its owner: files 0600, folders 0700. The database, its snapshot, the
 * landing files (raw API answers), the workbooks and `.eml` files hold sales and keys, so nobody else on the
 * machine may read them. The CLI sets the process umask to `privateUmask` before anything is written, so
 * every new file and folder is created private; `protectOwnedPaths` checks what was written before (by an
 * older version, or under another umask) and fixes what pinrecon owns, saying so.
 */
import { chmodSync, existsSync, lstatSync, readdirSync } from 'node:fs';
import path from 'node:path';

/** Group and others get nothing: files come out 0600 (0666 & ~077), folders 0700. */
export const privateUmask = 0o077;

export interface OwnedPaths {
  /** Single files pinrecon writes (the database, its write-ahead log, the snapshot, the key file). */
  files: string[];
  /** Folders pinrecon creates and fills alone (the landing folder): checked with everything under them. */
  trees: string[];
  /** Folders others may share (reports): only the files whose names match `ownedName` are checked. */
  sharedFolders: { folder: string; ownedName: RegExp }[];
}

/** A path that was readable or writable by others, and the mode it had. */
export interface LooseMode {
  path: string;
  mode: number;
  folder: boolean;
}

/** `0644`-style text of a mode's permission bits. */
export function octalMode(mode: number): string {
  return `0${(mode & 0o777).toString(8)}`;
}

/**
 * Sets every owned file to 0600 and owned folder to 0700 that grants anything to group or others, and
 * returns what it changed (the caller warns). Symbolic links are left alone, and a file it cannot change
 * (another owner) is reported by `warn` and skipped.
 */
export function protectOwnedPaths(owned: OwnedPaths, warn: (message: string) => void): LooseMode[] {
  const fixed: LooseMode[] = [];
  const fix = (file: string, isFolder: boolean) => {
    const stat = lstatSync(file, { throwIfNoEntry: false });
    if (!stat || stat.isSymbolicLink() || (stat.mode & 0o077) === 0) return;
    try {
      chmodSync(file, isFolder ? 0o700 : 0o600);
      fixed.push({ path: file, mode: stat.mode & 0o777, folder: isFolder });
    } catch (error) {
      warn(
        `${file} is readable by others (mode ${octalMode(stat.mode)}) and could not be made private: ${(error as Error).message}. Run: chmod ${isFolder ? '700' : '600'} ${file}`,
      );
    }
  };
  const walk = (folder: string) => {
    fix(folder, true);
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const child = path.join(folder, entry.name);
      if (entry.isDirectory()) walk(child);
      else if (entry.isFile()) fix(child, false);
    }
  };
  for (const file of owned.files) fix(file, false);
  for (const tree of owned.trees) if (existsSync(tree) && lstatSync(tree).isDirectory()) walk(tree);
  for (const { folder, ownedName } of owned.sharedFolders) {
    if (!existsSync(folder) || !lstatSync(folder).isDirectory()) continue;
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      if (entry.isFile() && ownedName.test(entry.name)) fix(path.join(folder, entry.name), false);
    }
  }
  return fixed;
}
