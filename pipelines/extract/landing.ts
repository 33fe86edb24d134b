/**
 * Where raw responses are kept: `extract.landingDir`, else `landing/` beside the database, one gzip file
 * per response, named after its window, flag and run so that nothing is ever overwritten.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Config } from '../../config/schema.js';
import { writeFileThroughTemporary } from '../../core/file-modes.js';
import type { ExtractWindow } from './plan.js';

export function landingRoot(config: Config): string {
  return config.extract.landingDir ?? path.join(path.dirname(config.database), 'landing');
}

/**
 * Keeps a response held in memory (a look-up's answers, a catalog's) as gzip at `file`: written under an
 * exclusive temporary name (private, 0600), then renamed, so a crash never leaves half a file. Returns the
 * body's and the file's bytes.
 */
export function landGzip(file: string, body: string): { bytes: number; fileBytes: number } {
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const text = Buffer.from(body);
  const gzip = gzipSync(text);
  writeFileThroughTemporary(file, gzip);
  return { bytes: text.length, fileBytes: gzip.length };
}

/** e.g. `<root>/sales/2026-01/paid_2026-01-01_2026-01-31_<runId>.json.gz` */
export function salesLandingPath(root: string, window: ExtractWindow, runId: string): string {
  return path.join(
    root,
    'sales',
    window.start.slice(0, 7),
    `${window.flag}_${window.start}_${window.end}_${runId}.json.gz`,
  );
}

/**
 * What a landed response was, kept beside it (`<file>.meta.json`) once its load has committed, so the
 * database can be rebuilt from the landing folder alone (`extract --from-landing`) with the same times,
 * runs and windows as the original extraction.
 */
export interface LandingRecord {
  endpoint: string;
  runId: string;
  /** When the answer's headers arrived (ISO 8601): the sales' seen-at times and the status history's. */
  fetchedAt: string;
  window?: ExtractWindow;
  /** A window's checkpoint time (`extract_windows.completed_at`), UTC, `YYYY-MM-DD HH:MM:SS.ffffff`. */
  completedAtUtc?: string;
}

export function landingRecordPath(file: string): string {
  return `${file}.meta.json`;
}

/** Written after the response's rows committed: a response without one never made it into the database. */
export function writeLandingRecord(file: string, record: LandingRecord): void {
  const target = landingRecordPath(file);
  writeFileThroughTemporary(target, `${JSON.stringify(record)}\n`);
}

/** A landed sales response found on disk, with its record (or what its name tells, when it has none). */
export interface LandedFile {
  path: string;
  record: LandingRecord;
  /** False when the file had no record: its fetch time is the file's modification time. */
  recorded: boolean;
}

const windowFileName = /^(paid|created)_(\d{4}-\d{2}-\d{2})_(\d{4}-\d{2}-\d{2})_(.+)\.json\.gz$/;
const lookupFileName = /^by-reference_(.+?)_(\d{8}T\d{6}Z-[0-9a-f]{8})\.json\.gz$/;

/** Every sales response under the landing root (`sales/`), in the order they were fetched. */
export function landedSalesFiles(root: string): LandedFile[] {
  const folder = path.join(root, 'sales');
  if (!existsSync(folder)) return [];
  const files: LandedFile[] = [];
  for (const entry of readdirSync(folder, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.json.gz')) continue;
    const file = path.join(entry.parentPath, entry.name);
    const recordFile = landingRecordPath(file);
    if (existsSync(recordFile)) {
      files.push({ path: file, record: JSON.parse(readFileSync(recordFile, 'utf8')) as LandingRecord, recorded: true });
      continue;
    }
    const fetchedAt = statSync(file).mtime.toISOString();
    const byWindow = windowFileName.exec(entry.name);
    const byLookup = lookupFileName.exec(entry.name);
    if (byWindow) {
      const window = { flag: byWindow[1] as ExtractWindow['flag'], start: byWindow[2]!, end: byWindow[3]! };
      files.push({
        path: file,
        record: { endpoint: 'salesByPeriod', runId: byWindow[4]!, fetchedAt, window },
        recorded: false,
      });
    } else if (byLookup) {
      files.push({
        path: file,
        record: { endpoint: 'salesByPartnerReference', runId: byLookup[2]!, fetchedAt },
        recorded: false,
      });
    }
  }
  return files.sort((a, b) => a.record.fetchedAt.localeCompare(b.record.fetchedAt) || a.path.localeCompare(b.path));
}
