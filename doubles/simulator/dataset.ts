/**
 * The simulator's sales: deterministic from (seed, options), and never held in memory. Sale i is a pure
 * function of (plan, i) — `generateSale` — so a period query computes the index range its window can
 * touch and generates only those sales, and millions of sales cost no memory at all. The only state is a
 * small overlay: sales booked through pre-redeem, status changes (reversals, redemptions) and stock.
 *
 * Distributions (each drawn from its own hash of (seed, i), so changing one leaves the others alone):
 * - creation time: the span [from 00:00, to+1 00:00) in `timezone` is cut into `salesCount` equal slots and
 *   sale i falls at a uniformly jittered point of slot i (whole seconds) — so creation time grows with i.
 * - payment time: before creation by 1–30 min (80 %), 30 min–6 h (17 %) or 6–20 h (3 %); so a sale can be
 *   paid the day (or month) before it was created, and the paid and created windows differ.
 * - product: one of the 30 catalog products, weighted (cheap mobile and Steam credits sell most; the two
 *   US-dollar products are rare); prices and partner costs are the catalog's.
 * - status: "Redeemed by Client" 90.9 %, "delivered" 6 % (booked, not yet redeemed; 25 % of those with
 *   keySentToCustomer false), "Canceled in stock" 3 % (keySentToCustomer false), and the status this
 *   service never documented, "Pending review", 0.1 %.
 * - partnerReference: "PO-<year created>-<i+1, 7 digits>", unique; 1 in 5,000 has surrounding spaces.
 * - key (PIN): 16 or 20 characters, or 4 dashed groups of 4 (19), depending on the product.
 * - transactionDate (the creation time): ISO 8601 with offset 60 % ("2026-01-31T23:55:00-03:00"), ISO
 *   without offset in local time 25 % ("2026-01-31T23:55:00"), "dd/MM/yyyy HH:mm:ss" local 15 %.
 * - buyer document: a valid CPF of one of ⌈salesCount / 3⌉ customers (customer = i mod that), so a
 *   document lookup is arithmetic, not a search.
 * - malformedEvery N: sales N, 2N, 3N… (1-based) are served malformed, alternately a required field missing
 *   (rotating over partnerCostPrice, transactionDate, productId, partnerReference, salesPrice) and an
 *   unparseable transactionDate ("31-02-2026 25:61", "2026-13-45T99:00:00"). `sales()` yields the true
 *   values with `malformation` set; `wireRecord` is what the API serves.
 */
import type { CatalogProduct, Collection, Customer, ReversalResult, SalesRecord } from '../../sources/partner-api/types.js';
import { Catalog, costCents, currencyOfProduct, productSpecs, type ProductSpec } from './catalog.js';
import { hash32, hashUnit } from './random.js';
import { Rejection } from './rejection.js';
import { daysInclusive, isCalendarDate, nextDay, ZonedClock } from './zoned-time.js';

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
export type Malformation = { kind: 'missing-field'; field: keyof SalesRecord } | { kind: 'bad-date'; transactionDate: string };

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
const MISSING_FIELDS: (keyof SalesRecord)[] = ['partnerCostPrice', 'transactionDate', 'productId', 'partnerReference', 'salesPrice'];
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
  if (daysInclusive(options.from, options.to) < 1) throw new RangeError(`dataset "to" (${options.to}) is before "from" (${options.from})`);
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
    formatDraw < 0.6 ? clock.isoWithOffset(createdMs) : formatDraw < 0.85 ? clock.isoLocal(createdMs) : clock.brazilian(createdMs);
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

function makeKey(format: ProductSpec['keyFormat'], word: (salt: number) => number): string {
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

function documentOfCustomer(seed: number, customer: number): string {
  const base = (BigInt(customer) * CPF_MULTIPLIER + cpfOffset(seed)) % CPF_MODULUS;
  const digits = base.toString().padStart(9, '0');
  return digits + cpfCheckDigits(digits);
}

function customerOfDocument(seed: number, document: string): number | undefined {
  if (!/^\d{11}$/.test(document) || cpfCheckDigits(document.slice(0, 9)) !== document.slice(9)) return undefined;
  const base = BigInt(document.slice(0, 9));
  const customer = (((base - cpfOffset(seed)) % CPF_MODULUS + CPF_MODULUS) * CPF_INVERSE) % CPF_MODULUS;
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

/** A pre-redeem request after the server has parsed it. */
export interface PreRedeemInput {
  productId: number;
  partnerReference: string;
  countryCode: string;
  currencyCode: string;
  customer?: Customer;
}

/** The generated sales plus the overlay of what happened through the API since the server started. */
export class Dataset {
  readonly plan: DatasetPlan;
  readonly catalog = new Catalog();
  private readonly now: () => Date;
  /** Status changes of generated sales, by transactionId. */
  private readonly changes = new Map<number, { status: string; keySentToCustomer: boolean }>();
  /** Sales booked through pre-redeem, in transactionId order. */
  private readonly booked: SimulatedSale[] = [];
  private readonly bookedByReference = new Map<string, SimulatedSale>();
  private readonly stockLeft = new Map(productSpecs.map((product) => [product.id, product.stock]));

  constructor(readonly options: DatasetOptions) {
    this.plan = planDataset(options);
    this.now = options.now ?? (() => new Date());
  }

  get timezone(): string {
    return this.plan.clock.timeZone;
  }

  /** Number of sales, generated and booked. */
  get size(): number {
    return this.plan.salesCount + this.booked.length;
  }

  /** Generated sale i with any status change applied. */
  sale(i: number): SimulatedSale {
    const sale = generateSale(this.plan, i);
    const change = this.changes.get(sale.transactionId);
    return change ? { ...sale, ...change } : sale;
  }

  /** Every sale in transactionId order (generated, then booked), with reversals applied. */
  *sales(): Generator<SimulatedSale> {
    for (let i = 0; i < this.plan.salesCount; i++) yield this.sale(i);
    yield* this.booked;
  }

  /**
   * Sales paid (or, with byCreateDate, created) from startDate 00:00 to finishDate 24:00 local time, in
   * transactionId order. Generates only the index range the window can reach.
   */
  *salesInPeriod(startDate: string, finishDate: string, byCreateDate: boolean): Generator<SimulatedSale> {
    const from = this.plan.clock.startOfDay(startDate);
    const to = this.plan.clock.startOfDay(nextDay(finishDate));
    const inWindow = (sale: SimulatedSale) => {
      const at = (byCreateDate ? sale.createdAt : sale.paidAt).getTime();
      return at >= from && at < to;
    };
    // Payment precedes creation by at most MAX_PAYMENT_LAG_MS, so sales paid in the window were created in
    // [from, to + lag).
    const [lo, hi] = this.indexRange(from, byCreateDate ? to : to + MAX_PAYMENT_LAG_MS);
    for (let i = lo; i < hi; i++) {
      const sale = this.sale(i);
      if (inWindow(sale)) yield sale;
    }
    for (const sale of this.booked) if (inWindow(sale)) yield sale;
  }

  /** Indexes [lo, hi) of the generated sales that may have been created in [fromMs, toMs). */
  indexRange(fromMs: number, toMs: number): [number, number] {
    const { salesCount, startMs, slotMs } = this.plan;
    if (salesCount === 0 || toMs <= startMs || fromMs >= this.plan.endMs) return [0, 0];
    // Sale i is created in [start + i·slot, start + (i+1)·slot); one slot of margin absorbs float rounding.
    const lo = Math.max(0, Math.floor((fromMs - startMs) / slotMs) - 1);
    const hi = Math.min(salesCount, Math.ceil((toMs - startMs) / slotMs) + 1);
    return [lo, Math.max(lo, hi)];
  }

  saleByTransactionId(transactionId: number): SimulatedSale | undefined {
    const i = transactionId - FIRST_TRANSACTION_ID;
    if (!Number.isSafeInteger(i) || i < 0) return undefined;
    if (i < this.plan.salesCount) return this.sale(i);
    return this.booked[i - this.plan.salesCount];
  }

  /** Sales whose reference equals `reference`, ignoring surrounding spaces on either side. */
  salesByPartnerReference(reference: string): SimulatedSale[] {
    const wanted = reference.trim();
    const booked = this.bookedByReference.get(wanted);
    if (booked) return [booked];
    const match = /^PO-\d{4}-(\d{7,})$/.exec(wanted);
    if (!match) return [];
    const i = Number(match[1]) - 1;
    if (i < 0 || i >= this.plan.salesCount) return [];
    const sale = this.sale(i);
    return sale.partnerReference.trim() === wanted ? [sale] : [];
  }

  /** Sales bought by this CPF (digits only). */
  salesByDocument(document: string): SimulatedSale[] {
    const found: SimulatedSale[] = [];
    const customer = customerOfDocument(this.plan.seed, document);
    if (customer !== undefined && customer < this.plan.customers) {
      for (let i = customer; i < this.plan.salesCount; i += this.plan.customers) found.push(this.sale(i));
    }
    for (const sale of this.booked) if (sale.buyerDocument === document) found.push(sale);
    return found;
  }

  /** Every product of the catalog (all countries and currencies), as in catalog listings. */
  products(): CatalogProduct[] {
    return this.catalog.available(null).map((product) => this.catalog.listingProduct(product));
  }

  /** The whole collection tree (all countries and currencies), with products. */
  collections(): Collection[] {
    return this.catalog.tree(null, true);
  }

  stock(productId: number): { hasStock: boolean; amount: number } {
    const amount = this.stockLeft.get(productId);
    if (amount === undefined) throw new Rejection('unknown_product', `Product ${productId} does not exist.`);
    return { hasStock: amount !== 0, amount };
  }

  /** Books a PIN now: a new sale with status "delivered". */
  preRedeem(input: PreRedeemInput): SimulatedSale {
    const product = this.catalog.product(input.productId);
    if (!product) throw new Rejection('unknown_product', `Product ${input.productId} does not exist.`);
    if (!this.catalog.isAvailable(product, { country: input.countryCode, currency: input.currencyCode })) {
      throw new Rejection(
        'product_not_available',
        `Product ${product.id} is not sold in ${input.countryCode}/${input.currencyCode} (it is sold in ${product.country}/${currencyOfProduct(product).code}).`,
      );
    }
    const reference = input.partnerReference.trim();
    if (this.salesByPartnerReference(reference).length > 0) {
      throw new Rejection('duplicate_partner_reference', `partnerReference "${reference}" was already used.`);
    }
    const left = this.stockLeft.get(product.id)!;
    if (left === 0) throw new Rejection('out_of_stock', `Product ${product.id} is out of stock.`);
    if (left > 0) this.stockLeft.set(product.id, left - 1);

    const i = this.plan.salesCount + this.booked.length;
    const now = this.now().getTime();
    const currency = currencyOfProduct(product);
    const sale: SimulatedSale = {
      transactionId: FIRST_TRANSACTION_ID + i,
      partnerReference: input.partnerReference,
      salesPrice: product.priceCents / 100,
      partnerCostPrice: costCents(product) / 100,
      productId: product.id,
      productName: product.name,
      status: 'delivered',
      transactionDate: this.plan.clock.isoWithOffset(now),
      countryCode: product.country,
      salesCurrencyCode: currency.code,
      salesCurrencySymbol: currency.symbol,
      key: makeKey(product.keyFormat, (salt) => hash32(this.plan.seed ^ 0x5bd1e995, i, salt)),
      keySentToCustomer: false,
      createdAt: new Date(now),
      paidAt: new Date(now),
      buyerDocument: input.customer?.document ?? '',
    };
    this.booked.push(sale);
    this.bookedByReference.set(reference, sale);
    return sale;
  }

  /** Reverses a sale: status "Canceled in stock"; a booked PIN goes back to stock. */
  reverse(transactionId: number): ReversalResult {
    const sale = this.saleByTransactionId(transactionId);
    if (!sale) throw new Rejection('unknown_transaction', `Transaction ${transactionId} does not exist.`);
    if (sale.status === 'Canceled in stock') {
      throw new Rejection('already_reversed', `Transaction ${transactionId} was already reversed.`);
    }
    this.setStatus(sale, 'Canceled in stock', false);
    const left = this.stockLeft.get(sale.productId);
    if (left !== undefined && left >= 0) this.stockLeft.set(sale.productId, left + 1);
    return { message: 'Transaction reversed successfully', status: 'Canceled in stock', transactionId };
  }

  reverseByPartnerReference(reference: string): ReversalResult {
    const [sale] = this.salesByPartnerReference(reference);
    if (!sale) throw new Rejection('unknown_partner_reference', `No transaction has partnerReference "${reference.trim()}".`);
    return this.reverse(sale.transactionId);
  }

  /** The customer finished the redeem page: status "Redeemed by Client", key sent. */
  redeem(transactionId: number): SimulatedSale {
    const sale = this.saleByTransactionId(transactionId);
    if (!sale) throw new Rejection('unknown_transaction', `Transaction ${transactionId} does not exist.`);
    if (sale.status !== 'delivered') {
      throw new Rejection('not_redeemable', `Transaction ${transactionId} is "${sale.status}", not "delivered".`);
    }
    this.setStatus(sale, 'Redeemed by Client', true);
    return this.saleByTransactionId(transactionId)!;
  }

  private setStatus(sale: SimulatedSale, status: string, keySentToCustomer: boolean): void {
    if (sale.transactionId - FIRST_TRANSACTION_ID < this.plan.salesCount) {
      this.changes.set(sale.transactionId, { status, keySentToCustomer });
    } else {
      sale.status = status;
      sale.keySentToCustomer = keySentToCustomer;
    }
  }
}
