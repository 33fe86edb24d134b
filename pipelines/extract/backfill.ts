/**
 * The back-fill: with `extract.historyStart` set, `extract` and `run` first fetch the by-creation windows from
 * it up to the day before their own range, so a paid order no stored sale answers is proven absent by the
 * windows (proof `windows`) instead of by one look-up each. It is `extract --by created` with no lookback:
 * completed windows are skipped, so a killed back-fill goes on from its first uncommitted window.
 */
import type { Config } from '../../config/schema.js';
import { addDays } from '../../core/calendar.js';
import type { Output } from '../../core/output.js';
import type { Warehouse } from '../../core/warehouse.js';
import type { PartnerApiClient } from '../../sources/partner-api/client.js';
import { extractSales, type ExtractSummary } from './extract.js';

export interface BackfillOptions {
  /** The first day the caller extracts itself: the back-fill ends the day before. */
  until: string;
  today?: string;
  client?: PartnerApiClient;
  parentRunId?: string;
  dryRun?: boolean;
}

/** The back-fill's range, or undefined when there is none (no historyStart, or it is not before `until`). */
export function backfillRange(config: Config, until: string): { from: string; to: string } | undefined {
  const from = config.extract.historyStart;
  if (!from) return undefined;
  const to = addDays(until, -1);
  return from <= to ? { from, to } : undefined;
}

/** Fetches the by-creation windows from extract.historyStart to the day before `until` not yet done. */
export async function backfillCreatedWindows(
  warehouse: Warehouse,
  config: Config,
  options: BackfillOptions,
  output: Output,
): Promise<ExtractSummary | undefined> {
  const range = backfillRange(config, options.until);
  if (!range) return undefined;
  return extractSales(
    warehouse,
    config,
    {
      ...range,
      by: 'created',
      // The back-fill proves what was created, not what statuses are now: a window completed after its days
      // ended is never fetched again for it (the normal extract and its lookback keep statuses current).
      lookbackDays: 0,
      progressLabel: 'back-fill windows',
      ...(options.today !== undefined && { today: options.today }),
      ...(options.client && { client: options.client }),
      ...(options.parentRunId !== undefined && { parentRunId: options.parentRunId }),
      ...(options.dryRun !== undefined && { dryRun: options.dryRun }),
    },
    output,
  );
}
