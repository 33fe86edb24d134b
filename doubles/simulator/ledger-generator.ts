/**
 * Writes the partner ledger of one period for the simulator's sales, with planted breaks of every kind, and
 * returns the plant: every finding `pinrecon reconcile` must report, computed here by the README's rules written
 * again in TypeScript (an independent oracle for the SQL models). Traps that must not become findings are planted
 * too: references with spaces, `10.3` against `10.30`, costs off by less than the tolerance.
 */
import type { Dataset } from './dataset.js';
import type { SimulatedSale } from './sale-generator.js';
import { hashUnit } from './random.js';
import { nextDay } from '../../core/calendar.js';
import { ZonedClock } from '../../core/zoned-time.js';
import { type Line, writeCsv } from './ledger-csv.js';
import { confirmedSales, decoyKinds, nearMissKinds, nearMissLines, nearMissReference } from './near-miss.js';
import type { DecoyKind, NearMissKind, PlantedSuggestion } from './near-miss.js';

export interface LedgerGeneratorOptions {
  /** YYYY-MM. */
  period: string;
  /** YYYY-MM-DD: the as-of date of the reconciliation the plant is for (ages unredeemed keys). */
  asOf: string;
  /** The CSV file to write (the canonical ledger headers). */
  file: string;
  /** The rules' settings, as in the config's `reconciliation`. */
  reconciliation: {
    costTolerance: number;
    priceTolerance?: number;
    unredeemedAfterDays: number;
    statusMap: Record<string, 'redeemed' | 'canceled' | 'booked'>;
  };
  /** Chooses which sales carry a break. Default 1. */
  seed?: number;
  /** One break of each kind per this many clean sales (at least one of each). Default 250. */
  salesPerBreak?: number;
  /** Also misspelled references of every kind, and decoys (issue 29: the demo's suggested matches). Default false. */
  nearMisses?: boolean;
}

export interface ExpectedFinding {
  findingType: string;
  /** Trimmed. */
  partnerReference: string;
  /** The sale a finding about one sale names (null for missing_at_provider and duplicate_reference). */
  transactionId: number | null;
  /** True when a planted break caused it; false for findings the data holds by itself. */
  planted: boolean;
}

export interface LedgerPlant {
  file: string;
  period: string;
  /** Data lines written. */
  lines: number;
  /** Every finding reconcile must report for the period, sorted by type then reference. */
  findings: ExpectedFinding[];
  /** Counts by finding type. */
  byType: Record<string, number>;
  /** References of ledger orders whose sale is outside the period's extract: only an individual lookup finds them. */
  lookups: string[];
  /** The breaks planted, by kind (traps included), with their references. */
  planted: Record<BreakKind, string[]>;
  /** Issue 29: the misspelled orders reconcile must propose as suggested matches (at rank 1), with their sales. */
  suggestions: PlantedSuggestion[];
  /** Every finding once each planted suggestion is confirmed (the pairs matched, reference_mismatch raised). */
  findingsAfterConfirming: Omit<ExpectedFinding, 'planted'>[];
}

type BreakKind =
  | 'missing_at_provider'
  | 'missing_in_ledger'
  | 'cost_mismatch'
  | 'price_mismatch'
  | 'cost_and_price_mismatch'
  | 'currency_mismatch'
  | 'product_mismatch'
  | 'duplicate_reference'
  | 'canceled_but_booked'
  | 'refunded_not_reversed'
  | 'late_lookup'
  | 'spaces_trap'
  | 'within_tolerance_trap'
  | NearMissKind
  | DecoyKind;

/** Breaks planted on clean redeemed sales, in this order. */
const saleBreaks: BreakKind[] = [
  'missing_in_ledger',
  'cost_mismatch',
  'price_mismatch',
  'cost_and_price_mismatch',
  'currency_mismatch',
  'product_mismatch',
  'duplicate_reference',
  'refunded_not_reversed',
  'spaces_trap',
  'within_tolerance_trap',
  ...nearMissKinds,
  ...decoyKinds,
];

export async function generateLedger(dataset: Dataset, options: LedgerGeneratorOptions): Promise<LedgerPlant> {
  const clock = new ZonedClock(dataset.timezone);
  const seed = options.seed ?? 1;
  const salesPerBreak = options.salesPerBreak ?? 250;
  const first = `${options.period}-01`;
  const next = nextMonth(options.period);
  const last = previousDay(`${next}-01`);
  const periodOf = (ms: number) => clock.localDate(ms).slice(0, 7);
  const classOf = (s: SimulatedSale) => options.reconciliation.statusMap[s.status.trim()] ?? 'unknown';

  // The sales the period's extract brings (paid or created in the period), by transactionId.
  const extracted = new Map<number, SimulatedSale>();
  for (const byCreated of [false, true])
    for (const s of dataset.salesInPeriod(first, last, byCreated)) extracted.set(s.transactionId, s);
  const inPeriodBothWays = (s: SimulatedSale) =>
    periodOf(s.createdAt.getTime()) === options.period && periodOf(s.paidAt.getTime()) === options.period;
  const shuffled = (sales: SimulatedSale[], salt: number) =>
    sales
      .map((s) => ({ s, u: hashUnit(seed, s.transactionId, salt) }))
      .sort((a, b) => a.u - b.u)
      .map((x) => x.s);
  const clean = shuffled(
    [...extracted.values()].filter((s) => inPeriodBothWays(s) && classOf(s) === 'redeemed' && s.keySentToCustomer),
    101,
  );
  const canceled = shuffled(
    [...extracted.values()].filter((s) => inPeriodBothWays(s) && classOf(s) === 'canceled'),
    102,
  );
  const perKind = Math.max(1, Math.floor(clean.length / salesPerBreak));

  const kinds = saleBreaks.filter((kind) => options.nearMisses || !/^(near_miss|decoy)_/.test(kind));
  const { planted, breakOf, suggestions } = plantBreaks(clean, canceled, perKind, kinds);

  const lines: Line[] = [];
  const lineOf = (s: SimulatedSale, status: Line['status'], paidAtMs = s.paidAt.getTime()): Line => ({
    reference: s.partnerReference,
    productId: s.productId,
    paidAtMs,
    price: tenThousandths(s.salesPrice),
    cost: tenThousandths(s.partnerCostPrice),
    currency: s.salesCurrencyCode,
    country: s.countryCode,
    status,
    shortDecimals: hashUnit(seed, s.transactionId, 103) < 0.5,
  });
  for (const s of [...extracted.values()].sort((a, b) => a.transactionId - b.transactionId)) {
    const normal = lineOf(s, classOf(s) === 'canceled' ? 'canceled' : 'paid');
    lines.push(...linesWithBreak(normal, breakOf.get(s.transactionId), options.reconciliation.costTolerance));
  }

  // Orders the partner booked at 23:55 on the last day (already next month in UTC) whose sale the provider
  // dates early next month: outside the period's extract, found only by an individual lookup.
  const late = shuffled(
    [...dataset.salesInPeriod(`${next}-01`, nextDay(nextDay(`${next}-01`)), true)].filter(
      (s) => periodOf(s.paidAt.getTime()) === next && classOf(s) === 'redeemed' && !extracted.has(s.transactionId),
    ),
    104,
  ).slice(0, perKind);
  const lastMinute = clock.startOfDay(`${next}-01`) - 5 * 60_000;
  const lookedUp = new Map<number, SimulatedSale>();
  for (const s of late) {
    lines.push(lineOf(s, 'paid', lastMinute));
    lookedUp.set(s.transactionId, s);
    planted.late_lookup.push(s.partnerReference.trim());
  }
  // Orders the provider never saw.
  for (const line of ghostOrders(options.period, perKind, clean, clock, seed)) {
    lines.push(line);
    planted.missing_at_provider.push(line.reference);
  }

  writeCsv(options.file, lines, clock);

  const plantedReferences = new Set(
    Object.entries(planted)
      .filter(([k]) => !k.endsWith('_trap'))
      .flatMap(([, refs]) => refs),
  );
  const sales = [...extracted.values(), ...lookedUp.values()];
  const expected = expectedFindings(lines, sales, options, clock);
  const findings = expected.map((f) => ({ ...f, planted: plantedReferences.has(f.partnerReference) }));
  // With no suggestion planted, confirming them changes nothing: a second pass over a 10M month's lines and sales ran
  // the plant out of its 16 GiB heap (2026-11-27).
  const findingsAfterConfirming =
    suggestions.length === 0
      ? expected
      : expectedFindings(
          lines,
          confirmedSales(sales, suggestions),
          options,
          clock,
          new Set(suggestions.map((s) => s.transactionId)),
        );
  const byType: Record<string, number> = {};
  for (const f of findings) byType[f.findingType] = (byType[f.findingType] ?? 0) + 1;
  return {
    file: options.file,
    period: options.period,
    lines: lines.length,
    findings,
    byType,
    lookups: planted.late_lookup,
    planted,
    suggestions,
    findingsAfterConfirming,
  };
}

/**
 * Which sale gets which break: `perKind` clean sales per sale break, in order, and `perKind` canceled sales booked as
 * paid.
 */
function plantBreaks(
  clean: SimulatedSale[],
  canceled: SimulatedSale[],
  perKind: number,
  kinds: BreakKind[],
): { planted: Record<BreakKind, string[]>; breakOf: Map<number, BreakKind>; suggestions: PlantedSuggestion[] } {
  const planted = Object.fromEntries(
    [...saleBreaks, 'missing_at_provider', 'canceled_but_booked', 'late_lookup'].map((k) => [k, []]),
  ) as unknown as Record<BreakKind, string[]>;
  const breakOf = new Map<number, BreakKind>();
  const suggestions: PlantedSuggestion[] = [];
  let taken = 0;
  for (const kind of kinds) {
    for (let n = 0; n < perKind && taken < clean.length; n++, taken++) {
      breakOf.set(clean[taken]!.transactionId, kind);
      const sale = clean[taken]!;
      planted[kind].push(sale.partnerReference.trim());
      // a misspelled order: its reference is planted too (its missing_at_provider is), and it is a suggestion
      if (kind.startsWith('near_miss_') || kind.startsWith('decoy_'))
        planted[kind].push(nearMissReference(kind as NearMissKind | DecoyKind, sale.partnerReference));
      if ((nearMissKinds as readonly string[]).includes(kind)) {
        const ledgerReference = nearMissReference(kind as NearMissKind, sale.partnerReference);
        suggestions.push({ kind: kind as NearMissKind, ledgerReference, transactionId: sale.transactionId });
      }
    }
  }
  for (const s of canceled.slice(0, perKind)) {
    breakOf.set(s.transactionId, 'canceled_but_booked');
    planted.canceled_but_booked.push(s.partnerReference.trim());
  }
  return { planted, breakOf, suggestions };
}

/** The ledger's line(s) for a sale: as it should be, or with the planted break (none for missing_in_ledger). */
function linesWithBreak(normal: Line, kind: BreakKind | undefined, costTolerance: number): Line[] {
  switch (kind) {
    case undefined:
      return [normal];
    case 'missing_in_ledger':
      return [];
    case 'cost_mismatch':
      return [{ ...normal, cost: normal.cost + 5_000 }];
    case 'price_mismatch':
      return [{ ...normal, price: normal.price + 10_000 }];
    case 'cost_and_price_mismatch':
      return [{ ...normal, cost: normal.cost - 2_500, price: normal.price - 10_000 }];
    case 'currency_mismatch':
      return [{ ...normal, currency: normal.currency === 'USD' ? 'BRL' : 'USD' }];
    case 'product_mismatch':
      return [{ ...normal, productId: normal.productId + 9_000 }];
    case 'duplicate_reference':
      return [normal, { ...normal }];
    case 'refunded_not_reversed':
      return [{ ...normal, status: 'refunded' }];
    case 'canceled_but_booked':
      return [{ ...normal, status: 'paid' }];
    case 'spaces_trap':
      return [{ ...normal, reference: `  ${normal.reference.trim()} ` }];
    case 'within_tolerance_trap':
      return [{ ...normal, cost: normal.cost + Math.floor(tenThousandths(costTolerance) / 2) }];
    default: {
      const misspelled = nearMissLines(kind, normal); // issue 29
      if (!misspelled) throw new Error(`unplanned break ${kind}`);
      return misspelled;
    }
  }
}

/**
 * `count` paid orders of the period the provider never saw (references PO-YYYYMM-GHOST-nnnn), priced like clean sales.
 */
function ghostOrders(period: string, count: number, clean: SimulatedSale[], clock: ZonedClock, seed: number): Line[] {
  const first = `${period}-01`;
  const next = nextMonth(period);
  const lines: Line[] = [];
  for (let n = 1; n <= count; n++) {
    const template = clean[n % Math.max(1, clean.length)];
    lines.push({
      reference: `PO-${period.replace('-', '')}-GHOST-${String(n).padStart(4, '0')}`,
      productId: template?.productId ?? 1,
      paidAtMs:
        clock.startOfDay(first) +
        Math.floor(hashUnit(seed, n, 105) * (clock.startOfDay(`${next}-01`) - clock.startOfDay(first))),
      price: tenThousandths(template?.salesPrice ?? 10),
      cost: tenThousandths(template?.partnerCostPrice ?? 9),
      currency: template?.salesCurrencyCode ?? 'BRL',
      country: template?.countryCode ?? 'BR',
      status: 'paid',
      shortDecimals: false,
    });
  }
  return lines;
}

/** The README's rules over the ledger lines and the provider's sales, for one period. */
function expectedFindings(
  lines: Line[],
  sales: SimulatedSale[],
  options: LedgerGeneratorOptions,
  clock: ZonedClock,
  confirmed: Set<number> = new Set(),
): Omit<ExpectedFinding, 'planted'>[] {
  const r = options.reconciliation;
  const costTolerance = tenThousandths(r.costTolerance);
  const priceTolerance = tenThousandths(r.priceTolerance ?? r.costTolerance);
  const periodOf = (ms: number) => clock.localDate(ms).slice(0, 7);
  const classOf = (s: SimulatedSale) => r.statusMap[s.status.trim()] ?? 'unknown';
  const findings: Omit<ExpectedFinding, 'planted'>[] = [];
  const add = (findingType: string, partnerReference: string, transactionId: number | null) =>
    findings.push({ findingType, partnerReference, transactionId });

  const groups = new Map<string, { lines: Line[]; sales: SimulatedSale[] }>();
  const group = (reference: string) =>
    groups.get(reference) ?? groups.set(reference, { lines: [], sales: [] }).get(reference)!;
  for (const line of lines) group(line.reference.trim()).lines.push(line);
  for (const sale of sales) group(sale.partnerReference.trim()).sales.push(sale);

  for (const [reference, g] of groups) {
    const inScope =
      g.lines.some((l) => periodOf(l.paidAtMs) === options.period) ||
      g.sales.some((s) => periodOf(s.createdAt.getTime()) === options.period);
    if (!inScope) continue;
    for (const s of g.sales) {
      if (periodOf(s.createdAt.getTime()) !== options.period) continue;
      const cls = classOf(s);
      if (cls === 'unknown') add('unknown_status', reference, s.transactionId);
      const age = Math.round(
        (Date.parse(`${options.asOf}T00:00:00Z`) - Date.parse(`${clock.localDate(s.createdAt.getTime())}T00:00:00Z`)) /
          86_400_000,
      );
      if (cls !== 'canceled' && (cls === 'booked' || !s.keySentToCustomer) && age > r.unredeemedAfterDays)
        add('unredeemed_key', reference, s.transactionId);
    }
    if (g.lines.length > 1 || g.sales.length > 1) {
      add('duplicate_reference', reference, null);
    } else if (g.lines.length === 1 && g.sales.length === 1) {
      const l = g.lines[0]!;
      const s = g.sales[0]!;
      const cls = classOf(s);
      const id = s.transactionId;
      if (Math.abs(tenThousandths(s.partnerCostPrice) - l.cost) > costTolerance) add('cost_mismatch', reference, id);
      if (Math.abs(tenThousandths(s.salesPrice) - l.price) > priceTolerance) add('price_mismatch', reference, id);
      if (s.salesCurrencyCode !== l.currency) add('currency_mismatch', reference, id);
      if (s.productId !== l.productId) add('product_mismatch', reference, id);
      if (cls === 'canceled' && l.status === 'paid') add('canceled_but_booked', reference, id);
      if (l.status !== 'paid' && cls !== 'canceled') add('refunded_not_reversed', reference, id);
      if (periodOf(l.paidAtMs) !== periodOf(s.createdAt.getTime())) add('cutoff_difference', reference, id);
      if (confirmed.has(id)) add('reference_mismatch', reference, id); // a confirmed suggested match (issue 29)
    } else if (g.lines.length === 1) {
      if (g.lines[0]!.status === 'paid') add('missing_at_provider', reference, null);
    } else if (classOf(g.sales[0]!) !== 'canceled') {
      add('missing_in_ledger', reference, g.sales[0]!.transactionId);
    }
  }
  return findings.sort(
    (a, b) => a.findingType.localeCompare(b.findingType) || a.partnerReference.localeCompare(b.partnerReference),
  );
}

function tenThousandths(value: number): number {
  return Math.round(value * 10_000);
}

function nextMonth(period: string): string {
  const [year, month] = period.split('-').map(Number) as [number, number];
  return new Date(Date.UTC(year, month, 1)).toISOString().slice(0, 7);
}

function previousDay(date: string): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
}
