/**
 * Generating the simulator's sales: deterministic from (seed, options) and never held in memory. Sale i is a
 * pure function of (plan, i) (`generateSale`), so a period query generates only the index range its window can
 * touch; the only state is a small overlay (dataset.ts). Each distribution (creation and payment time, product,
 * status, reference, key, date format, buyer, malformed records) draws from its own hash of (seed, i):
 * docs/ARCHITECTURE.md "Design notes by module" lists them.
 */
import type { SalesRecord } from '../../sources/partner-api/types.js';
import { costCents, currencyOfProduct, productSpecs, type ProductSpec } from './catalog.js';
import { hash32, hashUnit } from './random.js';
import { daysInclusive, isCalendarDate, nextDay } from '../../core/calendar.js';
import { ZonedClock } from '../../core/zoned-time.js';

export interface DatasetOptions {
  /** First creation date, YYYY-MM-DD (local). */
  from: string;
  /** Last creation date, YYYY-MM-DD (local), inclusive. */
  to: string;
  /** Number of generated sales; millions are fine. */
  salesCount: number;
  /** Default 'America/Sao_Paulo'. */
  timezone?: string;
  /** Every Nth sale is served malformed; 0 (default) = none. */
  malformedEvery?: number;
  /** Default 1. (startSimulator passes its own seed.) */
  seed?: number;
  /** The clock for pre-redeemed sales (tests). Default: the real one. */
  now?: () => Date;
}

/** Sales a day in the default data set. */
export const DEFAULT_SALES_PER_DAY = 400;

/** The default data set: sales created from the first day of last month to today (local), 400 a day. */
export function defaultDatasetOptions(timezone = 'America/Sao_Paulo', now = new Date()): DatasetOptions {
  const today = new ZonedClock(timezone).localDate(now.getTime());
  const [year, month] = today.split('-').map(Number) as [number, number];
  const from = month === 1 ? `${year - 1}-12-01` : `${year}-${String(month - 1).padStart(2, '0')}-01`;
  return { from, to: today, salesCount: daysInclusive(from, today) * DEFAULT_SALES_PER_DAY, timezone };
}

/** What is wrong with a sale as served. */
export type Malformation =
  | { kind: 'missing-field'; field: keyof SalesRecord }
  | { kind: 'bad-date'; transactionDate: string };

export interface SimulatedSale extends SalesRecord {
  createdAt: Date;
  paidAt: Date;
  /** The buyer's CPF (digits only); not part of the sales record. */
  buyerDocument: string;
  /** Set when the API serves this sale malformed; the fields above stay true. */
  malformation?: Malformation;
}

/** Everything `generateSale` needs, resolved once from the options. */
export interface DatasetPlan {
  seed: number;
  salesCount: number;
  startMs: number;
  endMs: number;
  slotMs: number;
  malformedEvery: number;
  customers: number;
  clock: ZonedClock;
}

export const FIRST_TRANSACTION_ID = 10_000_001;
/** The longest time between payment and creation (see the distribution above). */
export const MAX_PAYMENT_LAG_MS = 20 * 3_600_000;

const SALT = { jitter: 1, lag: 2, lagBand: 3, product: 4, status: 5, sent: 6, format: 7, spaces: 8, key: 9 } as const;
const MISSING_FIELDS: (keyof SalesRecord)[] = [
  'partnerCostPrice',
  'transactionDate',
  'productId',
  'partnerReference',
  'salesPrice',
];
const BAD_DATES = ['31-02-2026 25:61', '2026-13-45T99:00:00'];
const KEY_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';

const cumulativeWeights = (() => {
  let total = 0;
  return productSpecs.map((product) => (total += product.weight));
})();
const totalWeight = cumulativeWeights[cumulativeWeights.length - 1]!;

export function planDataset(options: DatasetOptions): DatasetPlan {
  if (!isCalendarDate(options.from) || !isCalendarDate(options.to)) {
    throw new RangeError(`dataset from/to must be dates written YYYY-MM-DD, got "${options.from}" and "${options.to}"`);
  }
  if (daysInclusive(options.from, options.to) < 1)
    throw new RangeError(`dataset "to" (${options.to}) is before "from" (${options.from})`);
  if (!Number.isSafeInteger(options.salesCount) || options.salesCount < 0) {
    throw new RangeError(`dataset salesCount must be a whole number ≥ 0, got ${options.salesCount}`);
  }
  const clock = new ZonedClock(options.timezone ?? 'America/Sao_Paulo');
  const startMs = clock.startOfDay(options.from);
  const endMs = clock.startOfDay(nextDay(options.to));
  return {
    seed: options.seed ?? 1,
    salesCount: options.salesCount,
    startMs,
    endMs,
    slotMs: options.salesCount > 0 ? (endMs - startMs) / options.salesCount : 0,
    malformedEvery: Math.max(0, Math.floor(options.malformedEvery ?? 0)),
    customers: Math.max(1, Math.ceil(options.salesCount / 3)),
    clock,
  };
}

/** Sale i of the plan (0 ≤ i < salesCount), as generated — before any reversal. Pure. */
export function generateSale(plan: DatasetPlan, i: number): SimulatedSale {
  const { seed, clock } = plan;
  const createdMs = Math.floor((plan.startMs + (i + hashUnit(seed, i, SALT.jitter)) * plan.slotMs) / 1000) * 1000;
  const paidAt = new Date(createdMs - paymentLagMs(seed, i));
  const product = pickProduct(hashUnit(seed, i, SALT.product));
  const currency = currencyOfProduct(product);

  const statusDraw = hashUnit(seed, i, SALT.status);
  const sentDraw = hashUnit(seed, i, SALT.sent);
  let status = 'Redeemed by Client';
  let keySentToCustomer = true;
  if (statusDraw < 0.001) {
    status = 'Pending review';
    keySentToCustomer = false;
  } else if (statusDraw < 0.031) {
    status = 'Canceled in stock';
    keySentToCustomer = false;
  } else if (statusDraw < 0.091) {
    status = 'delivered';
    keySentToCustomer = sentDraw >= 0.25;
  }

  const formatDraw = hashUnit(seed, i, SALT.format);
  const transactionDate =
    formatDraw < 0.6
      ? clock.isoWithOffset(createdMs)
      : formatDraw < 0.85
        ? clock.isoLocal(createdMs)
        : clock.brazilian(createdMs);
  const reference = `PO-${clock.localDate(createdMs).slice(0, 4)}-${String(i + 1).padStart(7, '0')}`;

  const sale: SimulatedSale = {
    transactionId: FIRST_TRANSACTION_ID + i,
    partnerReference: hashUnit(seed, i, SALT.spaces) < 1 / 5000 ? ` ${reference} ` : reference,
    salesPrice: product.priceCents / 100,
    partnerCostPrice: costCents(product) / 100,
    productId: product.id,
    productName: product.name,
    status,
    transactionDate,
    countryCode: product.country,
    salesCurrencyCode: currency.code,
    salesCurrencySymbol: currency.symbol,
    key: makeKey(product.keyFormat, (salt) => hash32(seed, i, SALT.key * 16 + salt)),
    keySentToCustomer,
    createdAt: new Date(createdMs),
    paidAt,
    buyerDocument: documentOfCustomer(seed, i % plan.customers),
  };
  const malformation = malformationOf(plan, i);
  if (malformation) sale.malformation = malformation;
  return sale;
}

/** The record exactly as the API serves it (a malformed sale loses a field or gets a bad date). */
export function wireRecord(sale: SimulatedSale): Partial<SalesRecord> {
  const record: Partial<SalesRecord> = {
    transactionId: sale.transactionId,
    partnerReference: sale.partnerReference,
    salesPrice: sale.salesPrice,
    partnerCostPrice: sale.partnerCostPrice,
    productId: sale.productId,
    productName: sale.productName,
    status: sale.status,
    transactionDate: sale.transactionDate,
    countryCode: sale.countryCode,
    salesCurrencyCode: sale.salesCurrencyCode,
    salesCurrencySymbol: sale.salesCurrencySymbol,
    key: sale.key,
    keySentToCustomer: sale.keySentToCustomer,
  };
  if (sale.malformation?.kind === 'missing-field') delete record[sale.malformation.field];
  if (sale.malformation?.kind === 'bad-date') record.transactionDate = sale.malformation.transactionDate;
  return record;
}

function paymentLagMs(seed: number, i: number): number {
  const band = hashUnit(seed, i, SALT.lagBand);
  const u = hashUnit(seed, i, SALT.lag);
  const minutes = band < 0.8 ? 1 + u * 29 : band < 0.97 ? 30 + u * 330 : 360 + u * 840;
  return Math.floor(minutes * 60) * 1000;
}

function pickProduct(u: number): ProductSpec {
  const target = u * totalWeight;
  let lo = 0;
  let hi = cumulativeWeights.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (cumulativeWeights[mid]! > target) hi = mid;
    else lo = mid + 1;
  }
  return productSpecs[lo]!;
}

export function makeKey(format: ProductSpec['keyFormat'], word: (salt: number) => number): string {
  const length = format === 'plain20' ? 20 : 16;
  let key = '';
  for (let w = 0; key.length < length; w++) {
    let bits = word(w);
    for (let c = 0; c < 6 && key.length < length; c++, bits >>>= 5) key += KEY_ALPHABET[bits & 31];
  }
  return format === 'dashed19' ? key.match(/.{4}/g)!.join('-') : key;
}

function malformationOf(plan: DatasetPlan, i: number): Malformation | undefined {
  if (plan.malformedEvery === 0 || (i + 1) % plan.malformedEvery !== 0) return undefined;
  const k = (i + 1) / plan.malformedEvery;
  const round = Math.floor((k - 1) / 2);
  return k % 2 === 1
    ? { kind: 'missing-field', field: MISSING_FIELDS[round % MISSING_FIELDS.length]! }
    : { kind: 'bad-date', transactionDate: BAD_DATES[round % BAD_DATES.length]! };
}

// Customer c's CPF: 9 base digits from an invertible affine map of c (mod 10^9), then the two check digits.
const CPF_MULTIPLIER = 387_420_489n; // 3^18: coprime to 10, so invertible modulo 10^9
const CPF_MODULUS = 1_000_000_000n;
const CPF_INVERSE = modularInverse(CPF_MULTIPLIER, CPF_MODULUS);

function cpfOffset(seed: number): bigint {
  return BigInt(hash32(seed, 0, 99)) % CPF_MODULUS;
}

export function documentOfCustomer(seed: number, customer: number): string {
  const base = (BigInt(customer) * CPF_MULTIPLIER + cpfOffset(seed)) % CPF_MODULUS;
  const digits = base.toString().padStart(9, '0');
  return digits + cpfCheckDigits(digits);
}

export function customerOfDocument(seed: number, document: string): number | undefined {
  if (!/^\d{11}$/.test(document) || cpfCheckDigits(document.slice(0, 9)) !== document.slice(9)) return undefined;
  const base = BigInt(document.slice(0, 9));
  const customer = ((((base - cpfOffset(seed)) % CPF_MODULUS) + CPF_MODULUS) * CPF_INVERSE) % CPF_MODULUS;
  return Number(customer);
}

function cpfCheckDigits(nine: string): string {
  const digit = (body: string) => {
    let sum = 0;
    for (let k = 0; k < body.length; k++) sum += Number(body[k]) * (body.length + 1 - k);
    const rest = (sum * 10) % 11;
    return rest === 10 ? 0 : rest;
  };
  const first = digit(nine);
  return `${first}${digit(nine + first)}`;
}

function modularInverse(a: bigint, m: bigint): bigint {
  let [oldR, r] = [a % m, m];
  let [oldS, s] = [1n, 0n];
  while (r !== 0n) {
    const q = oldR / r;
    [oldR, r] = [r, oldR - q * r];
    [oldS, s] = [s, oldS - q * s];
  }
  return ((oldS % m) + m) % m;
}
