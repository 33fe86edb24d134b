-- One row per catalog snapshot (`pinrecon catalog`): every run adds one, none is ever replaced, so an
-- analyst can diff any two (see catalog_product_changes).
CREATE TABLE IF NOT EXISTS catalog_snapshots (
  snapshot_id   VARCHAR PRIMARY KEY,        -- the run's run_id
  taken_at      TIMESTAMPTZ NOT NULL,       -- when the catalog tree was fetched
  snapshot_date DATE NOT NULL,              -- taken_at's day in the configured time zone
  run_id        VARCHAR NOT NULL,
  country       VARCHAR NOT NULL,           -- the catalog query the snapshot answers
  currency      VARCHAR NOT NULL,
  language      VARCHAR NOT NULL,
  collections   BIGINT NOT NULL,
  products      BIGINT NOT NULL,            -- distinct products in the tree
  fetch_errors  BIGINT NOT NULL,            -- product info / stock calls that failed (see catalog_fetch_errors)
  landing_dir   VARCHAR NOT NULL            -- where the raw responses of this snapshot are kept
);

-- One row per collection of the tree in a snapshot; parent_collection_id is NULL at the top.
CREATE TABLE IF NOT EXISTS catalog_collections (
  snapshot_id          VARCHAR NOT NULL,
  collection_id        BIGINT NOT NULL,
  parent_collection_id BIGINT,
  name                 VARCHAR,
  path                 VARCHAR,             -- names from the top, joined by ' > '
  depth                INTEGER NOT NULL,    -- 0 at the top
  position             INTEGER NOT NULL,    -- order among its siblings, as the API listed it
  terms_and_conditions VARCHAR,
  how_to_redeem        VARCHAR,
  tags                 JSON,
  PRIMARY KEY (snapshot_id, collection_id)
);

-- One row per product listed in a collection of a snapshot (a product may sit in several collections).
CREATE TABLE IF NOT EXISTS catalog_products (
  snapshot_id           VARCHAR NOT NULL,
  collection_id         BIGINT NOT NULL,
  product_id            BIGINT NOT NULL,
  name                  VARCHAR,
  sales_price           DECIMAL(18,4),
  original_price        DECIMAL(18,4),
  discount_percent      DECIMAL(18,4),
  partner_cost_price    DECIMAL(18,4),       -- what the provider charges the partner
  partner_cost_percent  DECIMAL(18,4),
  country_code          VARCHAR,
  sales_currency_code   VARCHAR,
  sales_currency_symbol VARCHAR,
  tags                  JSON,
  PRIMARY KEY (snapshot_id, collection_id, product_id)
);

-- One row per product of a snapshot: its product-info answer.
CREATE TABLE IF NOT EXISTS catalog_product_info (
  snapshot_id           VARCHAR NOT NULL,
  product_id            BIGINT NOT NULL,
  name                  VARCHAR,
  description           VARCHAR,
  sales_price           DECIMAL(18,4),
  original_price        DECIMAL(18,4),
  discount_percent      DECIMAL(18,4),
  partner_cost_price    DECIMAL(18,4),
  country_code          VARCHAR,
  sales_currency_code   VARCHAR,
  sales_currency_symbol VARCHAR,
  how_to_redeem         VARCHAR,
  terms_and_conditions  VARCHAR,
  collections           JSON,               -- the collections the product belongs to, as answered
  PRIMARY KEY (snapshot_id, product_id)
);

-- One row per product of a snapshot: its stock. amount -1 means unlimited.
CREATE TABLE IF NOT EXISTS catalog_stock (
  snapshot_id VARCHAR NOT NULL,
  product_id  BIGINT NOT NULL,
  has_stock   BOOLEAN,
  amount      BIGINT,
  unlimited   BOOLEAN,                      -- amount = -1
  PRIMARY KEY (snapshot_id, product_id)
);

-- One row per product call of a snapshot that failed for good: kept, counted, never silently dropped.
CREATE TABLE IF NOT EXISTS catalog_fetch_errors (
  snapshot_id VARCHAR NOT NULL,
  product_id  BIGINT NOT NULL,
  endpoint    VARCHAR NOT NULL,             -- productInfo | productStock
  status      INTEGER,                      -- HTTP status, when there was an answer
  error       VARCHAR NOT NULL
);

-- One row per product of the latest snapshot, with its price, cost and stock.
CREATE OR REPLACE VIEW catalog_current_products AS
WITH latest AS (
  SELECT snapshot_id, taken_at FROM catalog_snapshots ORDER BY taken_at DESC LIMIT 1
),
listed AS (
  SELECT p.snapshot_id, p.product_id,
         any_value(p.name) AS name,
         any_value(p.sales_price) AS sales_price,
         any_value(p.partner_cost_price) AS partner_cost_price,
         any_value(p.sales_currency_code) AS sales_currency_code,
         any_value(p.country_code) AS country_code,
         string_agg(c.path, ' | ' ORDER BY c.path) AS collections
  FROM catalog_products p
  JOIN latest USING (snapshot_id)
  LEFT JOIN catalog_collections c ON c.snapshot_id = p.snapshot_id AND c.collection_id = p.collection_id
  GROUP BY p.snapshot_id, p.product_id
),
final AS (
  SELECT l.*, latest.taken_at, s.has_stock, s.amount AS stock_amount
  FROM listed l
  JOIN latest USING (snapshot_id)
  LEFT JOIN catalog_stock s ON s.snapshot_id = l.snapshot_id AND s.product_id = l.product_id
)
SELECT * FROM final;

-- One row per product whose name, price, cost or currency differs between a snapshot and the one before it
-- (same country, currency and language), or that appeared ('added') or disappeared ('removed').
CREATE OR REPLACE VIEW catalog_product_changes AS
WITH per_snapshot AS (
  SELECT snapshot_id, product_id,
         any_value(name) AS name,
         any_value(sales_price) AS sales_price,
         any_value(partner_cost_price) AS partner_cost_price,
         any_value(sales_currency_code) AS currency_code
  FROM catalog_products
  GROUP BY snapshot_id, product_id
),
pairs AS (
  SELECT * FROM (
    SELECT snapshot_id, taken_at,
           lag(snapshot_id) OVER (PARTITION BY country, currency, language ORDER BY taken_at, snapshot_id)
               AS previous_snapshot_id
    FROM catalog_snapshots
  ) WHERE previous_snapshot_id IS NOT NULL
),
keys AS (
  SELECT pr.*, ps.product_id FROM pairs pr JOIN per_snapshot ps ON ps.snapshot_id = pr.snapshot_id
  UNION
  SELECT pr.*, ps.product_id FROM pairs pr JOIN per_snapshot ps ON ps.snapshot_id = pr.previous_snapshot_id
),
compared AS (
  SELECT k.previous_snapshot_id, k.snapshot_id, k.taken_at, k.product_id,
         CASE WHEN prev.product_id IS NULL THEN 'added' WHEN cur.product_id IS NULL THEN 'removed' ELSE 'changed' END
             AS change,
         prev.name AS previous_name, cur.name,
         prev.sales_price AS previous_sales_price, cur.sales_price,
         prev.partner_cost_price AS previous_partner_cost_price, cur.partner_cost_price,
         prev.currency_code AS previous_currency_code, cur.currency_code
  FROM keys k
  LEFT JOIN per_snapshot cur ON cur.snapshot_id = k.snapshot_id AND cur.product_id = k.product_id
  LEFT JOIN per_snapshot prev ON prev.snapshot_id = k.previous_snapshot_id AND prev.product_id = k.product_id
),
final AS (
  SELECT * FROM compared
  WHERE change <> 'changed'
     OR previous_name IS DISTINCT FROM name
     OR previous_sales_price IS DISTINCT FROM sales_price
     OR previous_partner_cost_price IS DISTINCT FROM partner_cost_price
     OR previous_currency_code IS DISTINCT FROM currency_code
)
SELECT * FROM final;
