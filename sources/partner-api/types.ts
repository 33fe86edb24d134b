/**
 * The provider's records, as its API specification (the provider's API specification) describes them.
 * Shared by the client, the simulator and the extract pipeline.
 */

export interface Tag {
  id: number;
  name: string;
}

export interface CatalogProduct {
  id: number;
  name: string;
  salesPrice: number;
  originalPrice?: number;
  discountPercent?: number;
  partnerCostPrice: number;
  partnerCostPercent?: number;
  image?: string;
  coverImage?: string;
  termsAndConditions?: string;
  howToRedeem?: string;
  countryCode: string;
  salesCurrencyCode: string;
  salesCurrencySymbol: string;
  tags: Tag[];
}

export interface Collection {
  id: number;
  name: string;
  description?: string | null;
  image?: string | null;
  coverImage?: string | null;
  termsAndConditions: string;
  howToRedeem: string | null;
  collections: Collection[];
  products: CatalogProduct[];
  tags: Tag[];
}

export interface ProductDetail {
  id: number;
  name: string;
  description: string;
  salesPrice: number;
  originalPrice: number;
  discountPercent: number;
  partnerCostPrice: number;
  howToRedeem: string;
  termsAndConditions: string;
  countryCode: string;
  salesCurrencyCode: string;
  salesCurrencySymbol: string;
  collections: { id: number; name: string; termsAndConditions: string; howToRedeem: string; collection: unknown }[];
}

export interface TokenRecord {
  accessToken: string;
  refreshToken: string;
  createdAt: string;
  expiredAt: string;
  isAuthenticated: boolean;
}

export interface StockStatus {
  hasStock: boolean;
  /** -1 when unlimited. */
  amount: number;
}

export interface Customer {
  document?: string;
  name?: string;
  bornAt?: string;
  zipCode?: string;
  streetName?: string;
  streetNumber?: string;
  complement?: string;
  neighborhood?: string;
  city?: string;
  state?: string;
  countryCode?: string;
}

export interface PreRedeemRequest {
  productId: number;
  partnerReference: string;
  countryCode?: string;
  currencyCode?: string;
  customer?: Customer;
}

export interface PreRedeemResponse {
  status: string;
  transaction: { transactionId: number; key: string; partnerReference: string; redirectLink?: string };
}

export interface ReversalResult {
  message: string;
  status: string;
  transactionId: number;
}

export interface SalesRecord {
  transactionId: number;
  partnerReference: string;
  salesPrice: number;
  partnerCostPrice: number;
  productId: number;
  productName: string;
  status: string;
  /** Format not published: ISO 8601 with or without offset, or dd/MM/yyyy HH:mm:ss. */
  transactionDate: string;
  countryCode: string;
  salesCurrencyCode: string;
  salesCurrencySymbol: string;
  /** The PIN. Only its last 4 characters ever leave the database. */
  key: string;
  keySentToCustomer: boolean;
}

/** Query parameters of catalog and stock operations. */
export interface CatalogQuery {
  country?: string;
  currency?: string;
  language?: string;
}
