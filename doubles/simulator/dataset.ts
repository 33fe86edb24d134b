/**
 * The simulator's data set: the generated sales (sale-generator.ts) plus the small overlay of what happened
 * through the API since the server started — sales booked through pre-redeem, status changes and stock.
 */
import type { CatalogProduct, Collection, Customer, ReversalResult } from '../../sources/partner-api/types.js';
import { Catalog, costCents, currencyOfProduct, productSpecs } from './catalog.js';
import { hash32 } from './random.js';
import { Rejection } from './rejection.js';
import { nextDay } from '../../core/calendar.js';
import {
  customerOfDocument,
  FIRST_TRANSACTION_ID,
  generateSale,
  makeKey,
  MAX_PAYMENT_LAG_MS,
  planDataset,
  type DatasetOptions,
  type DatasetPlan,
  type SimulatedSale,
} from './sale-generator.js';

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
  private changedSales = 0;

  constructor(readonly options: DatasetOptions) {
    this.plan = planDataset(options);
    this.now = options.now ?? (() => new Date());
  }

  get timezone(): string {
    return this.plan.clock.timeZone;
  }

  /** Sales booked or changed through the API since the server started: 0 while the data set is as generated. */
  get revision(): number {
    return this.changedSales;
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
        `Product ${product.id} is not sold in ${input.countryCode}/${input.currencyCode} (it is sold in ` +
          `${product.country}/${currencyOfProduct(product).code}).`,
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
    this.changedSales++;
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
    if (!sale)
      throw new Rejection('unknown_partner_reference', `No transaction has partnerReference "${reference.trim()}".`);
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
    this.changedSales++;
    if (sale.transactionId - FIRST_TRANSACTION_ID < this.plan.salesCount) {
      this.changes.set(sale.transactionId, { status, keySentToCustomer });
    } else {
      sale.status = status;
      sale.keySentToCustomer = keySentToCustomer;
    }
  }
}
