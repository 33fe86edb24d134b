/**
 * Issue 34 item 5: a temporary is created exclusively and never written through a link planted at its name
 * (`pinrecon-<P>.xlsx.tmp-<pid>`, `.eml.tmp-<pid>`, a claim's), and gets the access asked for before it is renamed.
 */
import { lstatSync, mkdtempSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  looksLikeDuckDb,
  privateAccess,
  temporaryFor,
  writeFileThroughTemporary,
  writeThroughTemporary,
} from '../../core/file-modes.js';
import { landGzip, writeLandingRecord } from '../../pipelines/extract/landing.js';
import { type ActionFile, writeActionFile } from '../../reports/action-files.js';
import { deliverReportEmail } from '../../reports/email.js';
import { configSchema } from '../../config/schema.js';

/** A folder with a victim file (0644) and a link to it planted at `target`'s temporary name. */
function planted(name: string): { dir: string; target: string; victim: string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'pinrecon-planted-'));
  const victim = path.join(dir, 'victim.txt');
  writeFileSync(victim, 'untouched', { mode: 0o644 });
  const target = path.join(dir, name);
  symlinkSync(victim, temporaryFor(target));
  return { dir, target, victim };
}

describe('temporaries', () => {
  it('removes a link planted at the temporary name instead of writing through it', async () => {
    const { target, victim } = planted('pinrecon-2026-01.xlsx');
    await writeThroughTemporary(target, { mode: 0o640 }, async (temporary) => {
      writeFileSync(temporary, 'workbook bytes');
    });
    expect(readFileSync(victim, 'utf8')).toBe('untouched');
    expect(statSync(victim).mode & 0o777).toBe(0o644);
    expect(readFileSync(target, 'utf8')).toBe('workbook bytes');
    expect(lstatSync(target).isFile()).toBe(true);
    expect(statSync(target).mode & 0o777).toBe(0o640);
    expect(lstatSync(temporaryFor(target), { throwIfNoEntry: false })).toBeUndefined();
  });

  it('removes the temporary when writing fails, and leaves the target as it was', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'pinrecon-planted-'));
    const target = path.join(dir, 'pinrecon-2026-01.xlsx');
    writeFileSync(target, 'the old workbook');
    await expect(
      writeThroughTemporary(target, privateAccess, async () => {
        throw new Error('disk full');
      }),
    ).rejects.toThrow('disk full');
    expect(readFileSync(target, 'utf8')).toBe('the old workbook');
    expect(lstatSync(temporaryFor(target), { throwIfNoEntry: false })).toBeUndefined();
  });

  it('writes a dry-run email (.eml) past a planted link, private', async () => {
    const { dir, target, victim } = planted('pinrecon-2026-01.eml');
    const attachment = path.join(dir, 'pinrecon-2026-01.xlsx');
    writeFileSync(attachment, 'workbook');
    const email = configSchema.parse({}).email;
    const message = { subject: 's', text: 't', html: '<p>t</p>', attachment };
    await deliverReportEmail(email, message, { emlFile: target });
    expect(readFileSync(victim, 'utf8')).toBe('untouched');
    expect(readFileSync(target, 'utf8')).toContain('Subject: s');
    expect(statSync(target).mode & 0o777).toBe(0o600);
  });

  it('writes a claim or journal file (actions export) past a planted link, as CSV and as Excel', async () => {
    const content: ActionFile = {
      sheet: 'Claims',
      columns: [{ header: 'Reference', key: 'reference', kind: 'text', width: 12 }],
      paper: 'A4',
      rows: [{ reference: 'PO-1' }],
      totals: { title: 'Totals', columns: [], rows: [] },
      totalsAt: 'end',
      csvTotals: false,
    };
    for (const format of ['csv', 'xlsx'] as const) {
      const { target, victim } = planted(`pinrecon-2026-01-claims.${format}`);
      await writeActionFile(target, format, content);
      expect(readFileSync(victim, 'utf8')).toBe('untouched');
      expect(lstatSync(target).isFile()).toBe(true);
      expect(statSync(target).mode & 0o777).toBe(0o600);
      if (format === 'csv') expect(readFileSync(target, 'utf8')).toContain('PO-1');
    }
  });

  it('lands a response and its record past planted links, private (0600): landing files hold masked keys', () => {
    const { target, victim } = planted('paid_2026-01-01_2026-01-31_run.json.gz');
    landGzip(target, '[{"key":"****1234"}]');
    expect(readFileSync(victim, 'utf8')).toBe('untouched');
    expect(lstatSync(target).isFile()).toBe(true);
    expect(statSync(target).mode & 0o777).toBe(0o600);
    symlinkSync(victim, temporaryFor(`${target}.meta.json`));
    writeLandingRecord(target, { endpoint: 'salesByPeriod', runId: 'run', fetchedAt: '2026-02-01T00:00:00Z' });
    expect(readFileSync(victim, 'utf8')).toBe('untouched');
    expect(statSync(`${target}.meta.json`).mode & 0o777).toBe(0o600);
    writeFileThroughTemporary(victim, 'replaced', { mode: 0o640 });
    expect(readFileSync(victim, 'utf8')).toBe('replaced');
    expect(statSync(victim).mode & 0o777).toBe(0o640);
  });

  it('tells a DuckDB file from another by its header', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'pinrecon-header-'));
    const other = path.join(dir, 'other.db');
    writeFileSync(other, 'SQLite format 3\0……');
    const empty = path.join(dir, 'empty.duckdb');
    writeFileSync(empty, '');
    const duck = path.join(dir, 'duck.duckdb');
    writeFileSync(duck, Buffer.concat([Buffer.alloc(8), Buffer.from('DUCK'), Buffer.alloc(100)]));
    expect([looksLikeDuckDb(other), looksLikeDuckDb(empty), looksLikeDuckDb(duck)]).toEqual([false, undefined, true]);
    expect(looksLikeDuckDb(path.join(dir, 'absent.duckdb'))).toBeUndefined();
    expect(looksLikeDuckDb(dir)).toBe(false);
  });
});
