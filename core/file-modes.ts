/**
 * Who may read what pinrecon writes, and how it writes it. Every command runs under a private umask, so new
 * files are 0600 and folders 0700; a file meant for analysts (the snapshot, exports) gets the access asked
 * for (0640 with a group) when it is written, never later. A temporary is created exclusively, never through a
 * link (a planted `….tmp-<pid>` symlink is removed, not followed), then renamed into place; the leftovers of a
 * killed run are removed at the next start. Modes are changed only on files pinrecon writes (issues 31, 34).
 */
import { execFileSync } from 'node:child_process';
import {
  closeSync,
  constants,
  copyFileSync,
  fchmodSync,
  fchownSync,
  fstatSync,
  lstatSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import type { Stats } from 'node:fs';
import path from 'node:path';

/** Group and others get nothing: files come out 0600 (0666 & ~077), folders 0700. */
export const privateUmask = 0o077;

/** The mode a written file gets, and the group it is given to (analysts.group), if any. */
export interface FileAccess {
  mode: number;
  gid?: number;
}

export const privateAccess: FileAccess = { mode: 0o600 };

/** `0644`-style text of a mode's permission bits. */
export function octalMode(mode: number): string {
  return `0${(mode & 0o777).toString(8)}`;
}

/** The numeric id of a group named (or numbered) `group`, by the system's own lookup; undefined when unknown. */
export function groupId(group: string): number | undefined {
  if (/^\d+$/.test(group)) return Number(group);
  try {
    // getent asks NSS (files, LDAP, sss), so a directory's group is found as the system finds it.
    const line = execFileSync('getent', ['group', group], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    const gid = Number(line.split(':')[2]);
    return Number.isInteger(gid) ? gid : undefined;
  } catch {
    const line = readFileSync('/etc/group', 'utf8')
      .split('\n')
      .find((l) => l.split(':')[0] === group);
    const gid = Number(line?.split(':')[2]);
    return line && Number.isInteger(gid) ? gid : undefined;
  }
}

/** The name of the temporary a file is written under before it is renamed into place. */
export function temporaryFor(target: string): string {
  return `${target}.tmp-${process.pid}`;
}

/**
 * Creates `file` empty and exclusively (O_EXCL, O_NOFOLLOW) with `access`, and returns its descriptor. Whatever
 * already had the name (a planted link, a leftover) is removed first; if something takes the name again in
 * between, the open fails rather than follow it.
 */
export function createExclusive(file: string, access: FileAccess = privateAccess): number {
  if (lstatSync(file, { throwIfNoEntry: false })) unlinkSync(file);
  const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
  const fd = openSync(file, flags, access.mode & 0o600);
  try {
    applyAccess(fd, access);
    return fd;
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

/** Gives an open file its group (when one is asked) and mode, by its descriptor: no path to be swapped. */
function applyAccess(fd: number, access: FileAccess): void {
  if (access.gid !== undefined && fstatSync(fd).gid !== access.gid) fchownSync(fd, -1, access.gid);
  fchmodSync(fd, access.mode);
}

/** Whether a file (its stat) has exactly `access`: that mode, and that group when one is asked. */
export function hasAccess(stat: { mode: number; gid: number }, access: FileAccess): boolean {
  return (stat.mode & 0o7777) === access.mode && (access.gid === undefined || stat.gid === access.gid);
}

/** Sets the access of a file pinrecon just wrote (by another writer: DuckDB's COPY), never through a link. */
export function setAccess(file: string, access: FileAccess): void {
  const fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    applyAccess(fd, access);
  } finally {
    closeSync(fd);
  }
}

/**
 * Writes `target` through its temporary: `write` fills the temporary (created exclusively, with `access`),
 * which is then renamed over `target`; on failure the temporary is removed.
 */
export async function writeThroughTemporary<T>(
  target: string,
  access: FileAccess,
  write: (temporary: string, fd: number) => Promise<T>,
): Promise<T> {
  const temporary = temporaryFor(target);
  const fd = createExclusive(temporary, access);
  let closed = false;
  const close = () => {
    if (!closed) closeSync(fd);
    closed = true;
  };
  try {
    const result = await write(temporary, fd);
    close();
    setAccess(temporary, access); // a writer that re-created the file (copyFileSync copies the source's mode)
    renameSync(temporary, target);
    return result;
  } catch (error) {
    close();
    rmSync(temporary, { force: true });
    throw error;
  }
}

/** `writeThroughTemporary` for a writer that does not wait: `fill` fills the temporary, by its name or descriptor. */
function replaceThroughTemporary(
  target: string,
  access: FileAccess,
  fill: (temporary: string, fd: number) => void,
): void {
  const temporary = temporaryFor(target);
  const fd = createExclusive(temporary, access);
  let open = true;
  try {
    fill(temporary, fd);
    closeSync(fd);
    open = false;
    setAccess(temporary, access); // a writer that re-created the file (copyFileSync copies the source's mode)
    renameSync(temporary, target);
  } catch (error) {
    if (open) closeSync(fd);
    rmSync(temporary, { force: true });
    throw error;
  }
}

/**
 * Writes `data` to `target` through an exclusive temporary (never through a planted link) with `access`, then
 * renames it into place, so a crash never leaves half a file (issue 34 item 5: landing files too).
 */
export function writeFileThroughTemporary(target: string, data: string | Uint8Array, access = privateAccess): void {
  replaceThroughTemporary(target, access, (_temporary, fd) => writeFileSync(fd, data));
}

/**
 * Copies `source` to `target` through an exclusive temporary with `access` (the snapshot). Issue 33: a clone where
 * the file system shares blocks (btrfs, XFS: no bytes copied), else a copy in the kernel.
 */
export function copyThroughTemporary(source: string, target: string, access: FileAccess): void {
  replaceThroughTemporary(target, access, (temporary) => copyFileSync(source, temporary, constants.COPYFILE_FICLONE));
}

/**
 * Lets `gid` pass through `folder` to a file it may read (the snapshot beside the database): group search (x)
 * only, not listing, and only on a folder of this account; returns whether it changed anything. Issue 31: a
 * 0640 snapshot inside a 0700 folder was out of the analysts' reach.
 */
export function letGroupThrough(folder: string, gid: number): boolean {
  const fd = openSync(folder, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
  try {
    const stat = fstatSync(fd);
    if (stat.uid !== process.getuid?.() || (stat.gid === gid && (stat.mode & 0o010) !== 0)) return false;
    if (stat.gid !== gid) fchownSync(fd, -1, gid);
    fchmodSync(fd, (stat.mode & 0o7777) | 0o010);
    return true;
  } finally {
    closeSync(fd);
  }
}

/** Whether a process of that id is running (signal 0 checks without sending anything). */
function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes the temporaries a killed run left in `folder` (`<name>.tmp-<pid>` whose process is gone), of the names
 * `owns` accepts and of this account only; returns what it removed.
 */
export function removeDeadTemporaries(folder: string, owns: (name: string) => boolean): string[] {
  const removed: string[] = [];
  const entries = (() => {
    try {
      return readdirSync(folder);
    } catch {
      return [];
    }
  })();
  for (const name of entries) {
    // A DuckDB temporary also leaves its write-ahead log (`….tmp-<pid>.wal`).
    const match = /^(.+)\.tmp-(\d+)(\.wal)?$/.exec(name);
    if (!match || !owns(match[1]!) || processAlive(Number(match[2]))) continue;
    const file = path.join(folder, name);
    const stat = lstatSync(file, { throwIfNoEntry: false });
    if (!stat || stat.isDirectory() || stat.uid !== process.getuid?.()) continue;
    rmSync(file, { force: true });
    removed.push(file);
  }
  return removed;
}

/**
 * Whether `file` holds a DuckDB database: "DUCK" at byte 8 of its header. Undefined when it cannot be read or
 * is empty (nothing to tell).
 */
export function looksLikeDuckDb(file: string): boolean | undefined {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch {
    return undefined;
  }
  try {
    const header = Buffer.alloc(12);
    const read = readSync(fd, header, 0, 12, 0);
    if (read === 0) return undefined;
    return read === 12 && header.subarray(8, 12).toString('latin1') === 'DUCK';
  } catch {
    return false; // a folder, a device: not a DuckDB file
  } finally {
    closeSync(fd);
  }
}

/**
 * Makes `file` 0600 when it is a regular file of this account that grants group or others anything (the
 * database, its log, the key file: they hold keys); returns the mode it had, or undefined when left alone.
 * Links, folders and other accounts' files are never touched.
 */
export function keepPrivate(file: string, warn: (message: string) => void): number | undefined {
  const stat = statUnlessClosed(file);
  if (!stat?.isFile() || stat.uid !== process.getuid?.() || (stat.mode & 0o077) === 0) return undefined;
  try {
    setAccess(file, privateAccess);
    return stat.mode & 0o777;
  } catch (error) {
    warn(
      `${file} is readable by others (mode ${octalMode(stat.mode)}) and could not be made private: ` +
        `${(error as Error).message}. Run: chmod 600 ${file}`,
    );
    return undefined;
  }
}

/** A file's lstat, or undefined when it is absent or behind a folder closed to this account (an analyst's). */
function statUnlessClosed(file: string): Stats | undefined {
  try {
    return lstatSync(file, { throwIfNoEntry: false });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EACCES') return undefined;
    throw error;
  }
}
