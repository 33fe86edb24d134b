/**
 * The reconcile bench's suggested matches (issue 29): the month's ledger with ~0.6 % of its clean orders typed with
 * a near-miss reference (each kind of doubles/simulator/near-miss.ts in turn), so that with the plant's own ghost
 * orders and sales no order answers (random references, ~0.4 % each) about 1 % of each side is unmatched; and the
 * count of what reconcile proposed: each misspelling with its own sale at rank 1, and every false proposal —
 * a misspelled order with another sale, or an order with a random reference (a ghost) with any sale.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import path from 'node:path';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { Warehouse } from '../../core/warehouse.js';
import { nearMissKinds, nearMissReference } from '../../doubles/simulator/near-miss.js';
import type { Month } from '../month-fixture.js';
import { period, timezone } from '../month-fixture.js';

/** The share of the ledger's clean orders misspelled. */
export const misspelledShare = 0.006;

export interface NearMissLedger {
  /** The ledger file with the misspelled orders. */
  ledger: string;
  /** The misspelled reference of each planted order → its sale's reference. */
  planted: Map<string, string>;
  /** The month's plant with each misspelled order's two findings (missing_at_provider, missing_in_ledger). */
  plant: Month['plant'];
}

/**
 * Writes `ledger-near-miss.csv` beside the month's ledger: a clean order (paid in the period, its reference the only
 * one of its kind, no planted finding) is misspelled when its reference's hash falls under `share`.
 */
export async function misspellLedger(month: Month, share = misspelledShare): Promise<NearMissLedger> {
  const withFinding = new Set([...month.plant.findings.map(([, reference]) => reference), ...month.plant.malformed]);
  const seen = new Map<string, number>();
  for await (const line of lines(month.ledger)) {
    const reference = referenceOf(line);
    if (reference !== null) seen.set(reference, (seen.get(reference) ?? 0) + 1);
  }
  const file = path.join(month.dir, 'ledger-near-miss.csv');
  const out = createWriteStream(file);
  const planted = new Map<string, string>();
  const findings = [...month.plant.findings];
  for await (const line of lines(month.ledger)) {
    let written = line;
    const reference = referenceOf(line);
    const fields = line.split(',');
    const clean =
      reference !== null &&
      /^PO-\d{4}-\d{7}$/.test(reference) &&
      seen.get(reference) === 1 &&
      !withFinding.has(reference) &&
      (fields[2] ?? '').startsWith(period) &&
      fields[fields.length - 1] === 'paid';
    if (clean && unitHash(reference) < share) {
      const misspelled = nearMissReference(nearMissKinds[planted.size % nearMissKinds.length]!, reference);
      planted.set(misspelled, reference);
      findings.push(['missing_at_provider', misspelled, null], ['missing_in_ledger', reference, null]);
      written = `"${misspelled}"${line.slice(reference.length + 2)}`;
    }
    if (!out.write(`${written}\n`)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  const byType = { ...month.plant.byType };
  byType.missing_at_provider = (byType.missing_at_provider ?? 0) + planted.size;
  byType.missing_in_ledger = (byType.missing_in_ledger ?? 0) + planted.size;
  return { ledger: file, planted, plant: { ...month.plant, findings, byType } };
}

export interface ProposalCount {
  /** Suggestions proposed for the period. */
  proposals: number;
  /** Misspelled orders planted. */
  planted: number;
  /** Of which proposed with their own sale at rank 1. */
  plantedAtRank1: number;
  /** A misspelled order proposed with another sale (its neighbours' references differ in a digit or two). */
  falseWithAnotherSale: number;
  /** An order whose reference shares nothing with any sale's (a ghost, or another order no sale answers). */
  falseFromRandomReferences: number;
}

/** What reconcile proposed for the period, against the plant. */
export async function countProposals(month: Month, planted: Map<string, string>): Promise<ProposalCount> {
  const warehouse = await Warehouse.open(month.database, { timezone });
  try {
    const rows = await warehouse.all<{ ledger_reference: string; provider_reference: string; rank: string }>(
      `SELECT ledger_reference, provider_reference, rank::VARCHAR AS rank FROM recon_match_suggestions
       WHERE period = $1 AND status = 'proposed'`,
      [period],
    );
    const count: ProposalCount = {
      proposals: rows.length,
      planted: planted.size,
      plantedAtRank1: 0,
      falseWithAnotherSale: 0,
      falseFromRandomReferences: 0,
    };
    for (const row of rows) {
      const own = planted.get(row.ledger_reference);
      if (own === undefined) count.falseFromRandomReferences++;
      else if (own !== row.provider_reference.trim()) count.falseWithAnotherSale++;
      else if (row.rank === '1') count.plantedAtRank1++;
    }
    return count;
  } finally {
    warehouse.close();
  }
}

/** The suggestions' models' seconds in a reconcile's summary (the candidates and their mart). */
export function suggestionSeconds(models: Record<string, number>): number {
  return ['int_recon_match_candidates', 'recon_match_suggestions'].reduce((sum, name) => sum + (models[name] ?? 0), 0);
}

function lines(file: string): AsyncIterable<string> {
  return createInterface({ input: createReadStream(file), crlfDelay: Number.POSITIVE_INFINITY });
}

/** The line's reference (its first field, quoted as the generator writes it), or null for another shape. */
function referenceOf(line: string): string | null {
  const match = /^"([^"]*)",/.exec(line);
  return match ? match[1]! : null;
}

/** FNV-1a of the text, as a number in [0, 1): the same orders misspelled in every run. */
function unitHash(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) / 2 ** 32;
}
