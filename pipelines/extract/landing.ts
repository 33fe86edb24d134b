/**
 * Where raw responses are kept: `extract.landingDir`, else `landing/` beside the database, one gzip file
 * per response, named after its window, flag and run so that nothing is ever overwritten.
 */
import path from 'node:path';
import type { Config } from '../../config/schema.js';
import type { ExtractWindow } from './plan.js';

export function landingRoot(config: Config): string {
  return config.extract.landingDir ?? path.join(path.dirname(config.database), 'landing');
}

/** e.g. `<root>/sales/2026-01/paid_2026-01-01_2026-01-31_<runId>.json.gz` */
export function salesLandingPath(root: string, window: ExtractWindow, runId: string): string {
  return path.join(root, 'sales', window.start.slice(0, 7), `${window.flag}_${window.start}_${window.end}_${runId}.json.gz`);
}
