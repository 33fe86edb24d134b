/**
 * Writes the partner ledger of a simulated month with the demo's mix of planted breaks, and the findings a
 * reconciliation must report, for bench/month-end.ts. Run as its own process (the plant of a 10M-sales month
 * needs a larger heap than a benchmark child has):
 *   node --max-old-space-size=N dist/bench/generators/month-ledger.js <options.json>
 * The options name the same data set the simulator child serves (seed, dates, count, time zone), so both
 * generate the same sales. Writes `<ledger>.plant.json`: lines, counts by type and every expected finding.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { configSchema } from '../../config/schema.js';
import { Dataset } from '../../doubles/simulator/dataset.js';
import type { DatasetOptions } from '../../doubles/simulator/sale-generator.js';
import { generateLedger } from '../../doubles/simulator/ledger-generator.js';

export interface MonthLedgerOptions {
  dataset: DatasetOptions;
  period: string;
  asOf: string;
  ledger: string;
  seed: number;
}

/** What the generator leaves beside the ledger: expected findings as [type, trimmed reference, transactionId]. */
export interface MonthPlant {
  lines: number;
  byType: Record<string, number>;
  findings: [string, string, number | null][];
  /**
   * Trimmed references of the sales the simulator serves malformed (a field missing or a date unreadable):
   * the plant does not model what reconcile makes of a quarantined record, so the bench counts those apart.
   */
  malformed: string[];
}

export function plantFile(ledger: string): string {
  return `${ledger}.plant.json`;
}

async function main(optionsFile: string): Promise<void> {
  const options = JSON.parse(readFileSync(optionsFile, 'utf8')) as MonthLedgerOptions;
  const dataset = new Dataset(options.dataset);
  const plant = await generateLedger(dataset, {
    period: options.period,
    asOf: options.asOf,
    file: options.ledger,
    reconciliation: configSchema.parse({}).reconciliation,
    seed: options.seed,
  });
  const result: MonthPlant = {
    lines: plant.lines,
    byType: plant.byType,
    findings: plant.findings.map((f) => [f.findingType, f.partnerReference, f.transactionId]),
    malformed: malformedReferences(dataset),
  };
  writeFileSync(plantFile(options.ledger), JSON.stringify(result));
}

// Run as a script only: the bench imports this module for its types and plantFile().
function malformedReferences(dataset: Dataset): string[] {
  const every = dataset.plan.malformedEvery;
  const references: string[] = [];
  if (every === 0) return references;
  for (let i = every - 1; i < dataset.plan.salesCount; i += every)
    references.push(dataset.sale(i).partnerReference.trim());
  return references;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main(process.argv[2] ?? '');
