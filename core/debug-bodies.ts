/**
 * `--debug`: the whole bodies of remote servers' error answers (provider, SMTP), which nothing else keeps (issue 34:
 * only their size and digest are printed or stored), appended to one private file (0600, never followed if a link).
 */
import { closeSync, constants, fchmodSync, openSync, writeSync } from 'node:fs';
import { bodyDigest } from './secret-redaction.js';

let debugFile: string | undefined;

/** Where this process keeps error bodies from now on (undefined: nowhere, the default). */
export function keepBodiesIn(file: string | undefined): void {
  debugFile = file;
}

/** Appends one error body to the debug file, when `--debug` named one; else nothing. */
export function keepBody(source: string, body: string): void {
  if (!debugFile || body.length === 0) return;
  const flags = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW;
  const fd = openSync(debugFile, flags, 0o600);
  try {
    fchmodSync(fd, 0o600);
    writeSync(fd, `--- ${new Date().toISOString()} ${source} (${bodyDigest(body)})\n${body}\n`);
  } finally {
    closeSync(fd);
  }
}
