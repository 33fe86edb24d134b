/**
 * The simulator's fixed product catalog: 30 products in a small tree of collections, mostly Brazilian reais
 * and a few US-dollar products, with the record shapes of each catalog operation of the spec.
 *
 * Prices are kept in integer cents and the partner discount in tenths of a percent, so that
 * partnerCostPrice = salesPrice × (1 − discount%) is computed exactly and rounded half-up to the cent.
 */
import type { CatalogProduct, CatalogQuery, Collection, ProductDetail, Tag } from '../../sources/partner-api/types.js';

/** One product as the simulator knows it (more than any one record shows). */
export interface ProductSpec {
  id: number;
  name: string;
  collectionId: number;
  priceCents: number;
  /** Partner discount in tenths of a percent (75 = 7.5 %). */
  discountTenths: number;
  country: 'BR' | 'US';
  /** Relative share of sales. */
  weight: number;
  /** Initial stock; -1 = unlimited. */
  stock: number;
  /** Shape of the PIN: 16 characters, 4 groups of 4 with dashes (19), or 20 characters. */
  keyFormat: 'plain16' | 'dashed19' | 'plain20';
  tags: number[];
}

interface CollectionSpec {
  id: number;
  name: string;
  parentId?: number;
  description: string;
  tags: number[];
}

const tags: Tag[] = [
  { id: 1, name: 'games' },
  { id: 2, name: 'gift card' },
  { id: 3, name: 'streaming' },
  { id: 4, name: 'mobile' },
  { id: 5, name: 'promo' },
  { id: 6, name: 'international' },
];

const collectionSpecs: CollectionSpec[] = [
  { id: 10, name: 'Games', description: 'Créditos e gift cards de jogos', tags: [1] },
  { id: 11, name: 'PlayStation', parentId: 10, description: 'PlayStation Store', tags: [1] },
  { id: 12, name: 'Xbox', parentId: 10, description: 'Xbox e Game Pass', tags: [1] },
  { id: 13, name: 'Nintendo', parentId: 10, description: 'Nintendo eShop', tags: [1] },
  { id: 14, name: 'PC', parentId: 10, description: 'Steam, Blizzard e Riot', tags: [1] },
  { id: 15, name: 'Mobile games', parentId: 10, description: 'Diamantes, moedas e passes', tags: [1, 4] },
  { id: 20, name: 'Gift cards', description: 'Lojas de aplicativos e streaming', tags: [2] },
  { id: 21, name: 'App stores', parentId: 20, description: 'Google Play e App Store', tags: [2, 4] },
  { id: 22, name: 'Streaming', parentId: 20, description: 'Filmes, séries e música', tags: [2, 3] },
  { id: 30, name: 'Delivery & transporte', description: 'Comida e corridas', tags: [2] },
  { id: 40, name: 'International', description: 'US-dollar gift cards', tags: [6] },
];

const p = (
  id: number,
  name: string,
  collectionId: number,
  priceCents: number,
  discountTenths: number,
  weight: number,
  stock: number,
  keyFormat: ProductSpec['keyFormat'],
  productTags: number[],
  country: ProductSpec['country'] = 'BR',
): ProductSpec => ({
  id,
  name,
  collectionId,
  priceCents,
  discountTenths,
  country,
  weight,
  stock,
  keyFormat,
  tags: productTags,
});

export const productSpecs: readonly ProductSpec[] = [
  p(3101, 'PlayStation Store R$ 30', 11, 3000, 40, 40, -1, 'dashed19', [1]),
  p(3102, 'PlayStation Store R$ 60', 11, 6000, 40, 35, -1, 'dashed19', [1]),
  p(3103, 'PlayStation Store R$ 100', 11, 10000, 45, 25, -1, 'dashed19', [1]),
  p(3104, 'PlayStation Plus Essential 3 meses', 11, 11990, 50, 12, 5000, 'dashed19', [1]),
  p(3201, 'Xbox Gift Card R$ 50', 12, 5000, 40, 30, -1, 'dashed19', [1]),
  p(3202, 'Xbox Gift Card R$ 100', 12, 10000, 40, 18, -1, 'dashed19', [1]),
  p(3203, 'Xbox Game Pass Ultimate 1 mês', 12, 5899, 35, 28, 8000, 'dashed19', [1]),
  p(3301, 'Nintendo eShop R$ 50', 13, 5000, 30, 14, -1, 'plain16', [1]),
  p(3302, 'Nintendo eShop R$ 150', 13, 15000, 30, 6, 2000, 'plain16', [1]),
  p(3401, 'Steam R$ 20', 14, 2000, 60, 60, -1, 'plain16', [1]),
  p(3402, 'Steam R$ 50', 14, 5000, 60, 45, -1, 'plain16', [1]),
  p(3403, 'Steam R$ 100', 14, 10000, 55, 20, -1, 'plain16', [1]),
  p(3404, 'Blizzard Balance R$ 200', 14, 20000, 50, 5, 1500, 'plain20', [1]),
  p(3405, 'Riot Points R$ 49,90', 14, 4990, 75, 30, -1, 'plain20', [1, 5]),
  p(3501, 'Free Fire 100 diamantes', 15, 1030, 100, 90, -1, 'plain16', [1, 4, 5]),
  p(3502, 'Free Fire 520 diamantes', 15, 4990, 100, 45, -1, 'plain16', [1, 4]),
  p(3503, 'Roblox 800 Robux', 15, 4990, 80, 40, -1, 'plain20', [1, 4]),
  p(3504, 'PUBG Mobile 660 UC', 15, 4490, 85, 12, 6000, 'plain20', [1, 4]),
  p(3505, 'Genshin Impact Bênção Lunar', 15, 2490, 70, 22, -1, 'plain16', [1, 4]),
  p(2101, 'Google Play R$ 15', 21, 1500, 35, 55, -1, 'plain20', [2, 4]),
  p(2102, 'Google Play R$ 50', 21, 5000, 35, 30, -1, 'plain20', [2, 4]),
  p(2103, 'App Store & iTunes R$ 50', 21, 5000, 30, 28, -1, 'plain16', [2, 4]),
  p(2201, 'Netflix R$ 35', 22, 3500, 25, 26, -1, 'plain16', [2, 3]),
  p(2202, 'Spotify Premium 3 meses', 22, 6270, 30, 18, 10000, 'plain16', [2, 3]),
  p(2203, 'Deezer Premium 1 mês', 22, 2690, 30, 6, 3000, 'plain16', [2, 3]),
  p(3001, 'iFood R$ 25', 30, 2500, 20, 30, -1, 'plain16', [2]),
  p(3002, 'Uber R$ 50', 30, 5000, 20, 16, -1, 'plain20', [2]),
  p(3003, 'Uber R$ 200', 30, 20000, 15, 3, 800, 'plain20', [2]),
  p(4001, 'Steam US$ 20', 40, 2000, 50, 4, -1, 'plain16', [1, 6], 'US'),
  p(4002, 'PlayStation Store US$ 25', 40, 2500, 45, 2, 1200, 'dashed19', [1, 6], 'US'),
];

const currencyOf = { BR: { code: 'BRL', symbol: 'R$' }, US: { code: 'USD', symbol: 'US$' } } as const;

const texts = {
  'pt-BR': {
    terms: 'Código de uso único, válido por 12 meses. Não pode ser trocado por dinheiro.',
    howTo: 'Acesse a loja, escolha "Resgatar código" e digite o PIN.',
  },
  en: {
    terms: 'Single-use code, valid for 12 months. Not exchangeable for cash.',
    howTo: 'Open the store, choose "Redeem code" and type the PIN.',
  },
};

export function currencyOfProduct(product: ProductSpec): { code: string; symbol: string } {
  return currencyOf[product.country];
}

/** partnerCostPrice in cents: price × (1 − discount%), half-up to the cent, exactly. */
export function costCents(product: ProductSpec): number {
  return Math.round((product.priceCents * (1000 - product.discountTenths)) / 1000);
}

const cents = (value: number) => value / 100;
const tagList = (ids: number[]) => tags.filter((t) => ids.includes(t.id));
const textsFor = (language: string | undefined) =>
  language?.toLowerCase().startsWith('en') ? texts.en : texts['pt-BR'];
const slug = (name: string) =>
  name
    .toLowerCase()
    .normalize('NFD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

/** The catalog filtered by the common query parameters (country BR, currency BRL, language pt-BR by default). */
export class Catalog {
  private readonly byId = new Map(productSpecs.map((product) => [product.id, product]));

  product(id: number): ProductSpec | undefined {
    return this.byId.get(id);
  }

  /** Products sold in this country and currency (null: every product). */
  available(query: CatalogQuery | null = {}): ProductSpec[] {
    if (query === null) return [...productSpecs];
    const country = (query.country ?? 'BR').toUpperCase();
    const currency = (query.currency ?? 'BRL').toUpperCase();
    return productSpecs.filter(
      (product) => product.country === country && currencyOf[product.country].code === currency,
    );
  }

  isAvailable(product: ProductSpec, query: CatalogQuery): boolean {
    return this.available(query).includes(product);
  }

  /** Product as nested in catalog listings. */
  listingProduct(product: ProductSpec): CatalogProduct {
    const currency = currencyOf[product.country];
    return {
      id: product.id,
      name: product.name,
      salesPrice: cents(product.priceCents),
      originalPrice: cents(product.priceCents),
      discountPercent: product.discountTenths / 10,
      partnerCostPrice: cents(costCents(product)),
      countryCode: product.country,
      salesCurrencyCode: currency.code,
      salesCurrencySymbol: currency.symbol,
      tags: tagList(product.tags),
    };
  }

  /** Product as nested in the collection-with-products operation. */
  collectionProduct(product: ProductSpec, language?: string): CatalogProduct {
    const currency = currencyOf[product.country];
    const text = textsFor(language);
    const image = `https://cdn.example.com/products/${product.id}-${slug(product.name)}`;
    return {
      id: product.id,
      name: product.name,
      salesPrice: cents(product.priceCents),
      partnerCostPrice: cents(costCents(product)),
      partnerCostPercent: (1000 - product.discountTenths) / 10,
      image: `${image}.png`,
      coverImage: `${image}-cover.png`,
      termsAndConditions: text.terms,
      howToRedeem: text.howTo,
      countryCode: product.country,
      salesCurrencyCode: currency.code,
      salesCurrencySymbol: currency.symbol,
      tags: tagList(product.tags),
    };
  }

  productDetail(product: ProductSpec, language?: string): ProductDetail {
    const text = textsFor(language);
    const listing = this.listingProduct(product);
    const own = collectionSpecs.find((c) => c.id === product.collectionId)!;
    const parent = collectionSpecs.find((c) => c.id === own.parentId);
    return {
      id: product.id,
      name: product.name,
      description: `${product.name}. ${own.description}.`,
      salesPrice: listing.salesPrice,
      originalPrice: listing.originalPrice!,
      discountPercent: listing.discountPercent!,
      partnerCostPrice: listing.partnerCostPrice,
      howToRedeem: text.howTo,
      termsAndConditions: text.terms,
      countryCode: listing.countryCode,
      salesCurrencyCode: listing.salesCurrencyCode,
      salesCurrencySymbol: listing.salesCurrencySymbol,
      collections: [
        {
          id: own.id,
          name: own.name,
          termsAndConditions: text.terms,
          howToRedeem: text.howTo,
          collection: parent ? { id: parent.id, name: parent.name } : null,
        },
      ],
    };
  }

  /**
   * The collection tree available to the partner for this query: collections without any available product
   * in their subtree are left out. `withProducts` false gives the collections-only listing.
   */
  tree(query: CatalogQuery | null, withProducts: boolean, shape: 'listing' | 'collection' = 'listing'): Collection[] {
    const available = new Set(this.available(query).map((product) => product.id));
    const build = (spec: CollectionSpec): Collection | undefined => {
      const children = collectionSpecs
        .filter((c) => c.parentId === spec.id)
        .map(build)
        .filter((c): c is Collection => c !== undefined);
      const products = productSpecs.filter((product) => product.collectionId === spec.id && available.has(product.id));
      if (children.length === 0 && products.length === 0) return undefined;
      const text = textsFor(query?.language);
      return {
        id: spec.id,
        name: spec.name,
        termsAndConditions: text.terms,
        howToRedeem: text.howTo,
        collections: children,
        products: withProducts
          ? products.map((product) =>
              shape === 'listing' ? this.listingProduct(product) : this.collectionProduct(product, query?.language),
            )
          : [],
        tags: tagList(spec.tags),
      };
    };
    return collectionSpecs
      .filter((c) => c.parentId === undefined)
      .map(build)
      .filter((c): c is Collection => c !== undefined);
  }

  /** Every available collection, flat (the "collections by partner" operation), without products. */
  partnerCollections(query: CatalogQuery = {}): Collection[] {
    const flat: Collection[] = [];
    const walk = (list: Collection[]) => {
      for (const c of list) {
        flat.push({ ...c, collections: [], products: [] });
        walk(c.collections);
      }
    };
    walk(this.tree(query, false));
    return flat;
  }

  /** One collection (with its products and child collections), or undefined when unknown or unavailable. */
  collection(id: number, query: CatalogQuery = {}): Collection | undefined {
    const find = (list: Collection[]): Collection | undefined => {
      for (const c of list) {
        if (c.id === id) return c;
        const inner = find(c.collections);
        if (inner) return inner;
      }
      return undefined;
    };
    const found = find(this.tree(query, true, 'collection'));
    if (!found) return undefined;
    const full = collectionSpecs.find((c) => c.id === id)!;
    return {
      ...found,
      description: full.description,
      image: `https://cdn.example.com/collections/${id}.png`,
      coverImage: `https://cdn.example.com/collections/${id}-cover.png`,
    };
  }
}
