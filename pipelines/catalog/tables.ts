/**
 * A catalog snapshot as rows of the catalog_* tables: the collection tree flattened (parent, path, depth,
 * position), listings, product info, stock, failed product calls and the landed files, each inserted in
 * multi-row statements; API numbers kept as exact decimal text. The caller commits them in one transaction.
 */
import type { Warehouse } from '../../core/warehouse.js';
import type { CatalogProduct, Collection, ProductDetail, StockStatus } from '../../sources/partner-api/types.js';

export interface CatalogFetchError {
  productId: number;
  endpoint: 'productInfo' | 'productStock';
  status?: number;
  error: string;
}

export interface CollectionRow {
  collection: Collection;
  parentId: number | null;
  path: string;
  depth: number;
  position: number;
}

export interface ProductFetch {
  productId: number;
  info?: ProductDetail;
  stock?: StockStatus;
}

export interface LandedFile {
  path: string;
  endpoint: string;
  /** The landed file's size on disk (gzip), as landing_files.bytes holds it. */
  bytes: number;
  records: number;
  fetchedAt: Date;
}

/** What the catalog_snapshots row says of the snapshot. */
export interface SnapshotHeader {
  snapshotId: string;
  takenAt: string;
  snapshotDate: string;
  country: string;
  currency: string;
  language: string;
  collections: number;
  /** Distinct products in the tree. */
  products: number;
  /** Product calls that failed for good: products × 2 = productInfo + stock + fetchErrors. */
  fetchErrors: number;
  landingDir: string;
}

/** The tree, depth first, each collection with its parent, path of names, depth and position among siblings. */
export function flattenTree(tree: Collection[]): CollectionRow[] {
  const rows: CollectionRow[] = [];
  const walk = (collections: Collection[], parent: CollectionRow | undefined) => {
    collections.forEach((collection, position) => {
      const row: CollectionRow = {
        collection,
        parentId: parent ? parent.collection.id : null,
        path: parent ? `${parent.path} > ${collection.name}` : collection.name,
        depth: parent ? parent.depth + 1 : 0,
        position,
      };
      rows.push(row);
      walk(collection.collections ?? [], row);
    });
  };
  walk(tree, undefined);
  return rows;
}

/** Exact decimal text of an API number (JS prints the shortest text that reads back the same), or null. */
function decimal(value: unknown): string | null {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value.trim())) return value.trim();
  return null;
}

function nullable(value: unknown): string | null {
  return value === undefined || value === null ? null : String(value);
}

/** Inserts rows in multi-row statements (DuckDB casts the text of DECIMAL, JSON and TIMESTAMPTZ values). */
async function insertRows(warehouse: Warehouse, table: string, columns: string[], rows: unknown[][]): Promise<number> {
  const batch = Math.max(1, Math.floor(1_000 / columns.length));
  for (let start = 0; start < rows.length; start += batch) {
    const slice = rows.slice(start, start + batch);
    const placeholders = slice
      .map((_, r) => `(${columns.map((_, c) => `$${r * columns.length + c + 1}`).join(', ')})`)
      .join(', ');
    await warehouse.run(`INSERT INTO ${table} (${columns.join(', ')}) VALUES ${placeholders}`, slice.flat() as never);
  }
  return rows.length;
}

/** Inserts the snapshot's rows into every catalog_* table and landing_files; returns the catalog rows written. */
export async function writeSnapshot(
  warehouse: Warehouse,
  summary: SnapshotHeader,
  data: {
    collections: CollectionRow[];
    listings: { collectionId: number; product: CatalogProduct }[];
    fetched: ProductFetch[];
    errors: CatalogFetchError[];
    landed: LandedFile[];
  },
): Promise<number> {
  const id = summary.snapshotId;
  let rows = await insertRows(
    warehouse,
    'catalog_snapshots',
    [
      'snapshot_id',
      'taken_at',
      'snapshot_date',
      'run_id',
      'country',
      'currency',
      'language',
      'collections',
      'products',
      'fetch_errors',
      'landing_dir',
    ],
    [
      [
        id,
        summary.takenAt,
        summary.snapshotDate,
        id,
        summary.country,
        summary.currency,
        summary.language,
        summary.collections,
        summary.products,
        summary.fetchErrors,
        summary.landingDir,
      ],
    ],
  );
  rows += await insertRows(
    warehouse,
    'catalog_collections',
    [
      'snapshot_id',
      'collection_id',
      'parent_collection_id',
      'name',
      'path',
      'depth',
      'position',
      'terms_and_conditions',
      'how_to_redeem',
      'tags',
    ],
    data.collections.map((r) => [
      id,
      r.collection.id,
      r.parentId,
      nullable(r.collection.name),
      r.path,
      r.depth,
      r.position,
      nullable(r.collection.termsAndConditions),
      nullable(r.collection.howToRedeem),
      JSON.stringify(r.collection.tags ?? []),
    ]),
  );
  rows += await insertRows(
    warehouse,
    'catalog_products',
    [
      'snapshot_id',
      'collection_id',
      'product_id',
      'name',
      'sales_price',
      'original_price',
      'discount_percent',
      'partner_cost_price',
      'partner_cost_percent',
      'country_code',
      'sales_currency_code',
      'sales_currency_symbol',
      'tags',
    ],
    data.listings.map(({ collectionId, product: p }) => [
      id,
      collectionId,
      p.id,
      nullable(p.name),
      decimal(p.salesPrice),
      decimal(p.originalPrice),
      decimal(p.discountPercent),
      decimal(p.partnerCostPrice),
      decimal(p.partnerCostPercent),
      nullable(p.countryCode),
      nullable(p.salesCurrencyCode),
      nullable(p.salesCurrencySymbol),
      JSON.stringify(p.tags ?? []),
    ]),
  );
  rows += await insertRows(
    warehouse,
    'catalog_product_info',
    [
      'snapshot_id',
      'product_id',
      'name',
      'description',
      'sales_price',
      'original_price',
      'discount_percent',
      'partner_cost_price',
      'country_code',
      'sales_currency_code',
      'sales_currency_symbol',
      'how_to_redeem',
      'terms_and_conditions',
      'collections',
    ],
    data.fetched.flatMap(({ productId, info: d }) =>
      d
        ? [
            [
              id,
              productId,
              nullable(d.name),
              nullable(d.description),
              decimal(d.salesPrice),
              decimal(d.originalPrice),
              decimal(d.discountPercent),
              decimal(d.partnerCostPrice),
              nullable(d.countryCode),
              nullable(d.salesCurrencyCode),
              nullable(d.salesCurrencySymbol),
              nullable(d.howToRedeem),
              nullable(d.termsAndConditions),
              JSON.stringify(d.collections ?? []),
            ],
          ]
        : [],
    ),
  );
  rows += await insertRows(
    warehouse,
    'catalog_stock',
    ['snapshot_id', 'product_id', 'has_stock', 'amount', 'unlimited'],
    data.fetched.flatMap(({ productId, stock }) =>
      stock
        ? [
            [
              id,
              productId,
              typeof stock.hasStock === 'boolean' ? stock.hasStock : null,
              Number.isInteger(stock.amount) ? stock.amount : null,
              stock.amount === -1,
            ],
          ]
        : [],
    ),
  );
  await insertRows(
    warehouse,
    'catalog_fetch_errors',
    ['snapshot_id', 'product_id', 'endpoint', 'status', 'error'],
    data.errors.map((e) => [id, e.productId, e.endpoint, e.status ?? null, e.error]),
  );
  await insertRows(
    warehouse,
    'landing_files',
    ['path', 'run_id', 'endpoint', 'fetched_at', 'bytes', 'records'],
    data.landed.map((f) => [f.path, id, f.endpoint, f.fetchedAt.toISOString(), f.bytes, f.records]),
  );
  return rows;
}
