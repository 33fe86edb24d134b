import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

// vitest globalSetup: every temporary folder of one `npm test` (tests' mkdtemp, the CLI's children, LibreOffice) goes
// under one root made here and removed at the end, so a run leaves nothing behind in the machine's temp folder.
// Workers and the processes they spawn inherit TMPDIR, which os.tmpdir() reads.
export function setup(): () => void {
  const root = mkdtempSync(path.join(tmpdir(), 'pinrecon-test-'));
  process.env.TMPDIR = root;
  return () => rmSync(root, { recursive: true, force: true });
}
