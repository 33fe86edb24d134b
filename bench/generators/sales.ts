/** Provider sales generated in DuckDB with SQL, for the benchmarks that need a big `sales` table. */

/**
 * `count` sales of March 2025, one every 2 seconds from 1 March 00:00 in São Paulo (1M end on 24
 * March): exact prices, 1 in 10 booked (not sent), 1 in 5 in USD, a 20-character PIN each.
 */
export function salesInsertSql(count: number): string {
  return `
    INSERT INTO sales (transaction_id, partner_reference, product_id, product_name, sales_price, partner_cost_price,
                       status, status_class, transaction_at, transaction_date_raw, country_code, sales_currency_code,
                       sales_currency_symbol, key, key_sent_to_customer, first_seen_at, last_seen_at)
    SELECT i, 'PO-' || lpad(i::VARCHAR, 8, '0'), 100 + i % 50, 'Gift card ' || (i % 50),
           (10 + i % 90)::DECIMAL(18,4), round((10 + i % 90) * 0.9137, 4)::DECIMAL(18,4),
           CASE WHEN i % 10 = 0 THEN 'delivered' ELSE 'Redeemed by Client' END,
           CASE WHEN i % 10 = 0 THEN 'booked' ELSE 'redeemed' END,
           TIMESTAMPTZ '2025-03-01 03:00:00+00' + to_seconds(i * 2), '', CASE WHEN i % 5 = 0 THEN 'US' ELSE 'BR' END,
           CASE WHEN i % 5 = 0 THEN 'USD' ELSE 'BRL' END, CASE WHEN i % 5 = 0 THEN '$' ELSE 'R$' END,
           upper(md5(i::VARCHAR))[1:20], i % 10 <> 0, TIMESTAMPTZ '2025-04-02 09:00:00+00',
           TIMESTAMPTZ '2025-04-02 09:00:00+00'
    FROM range(1, ${count + 1}) AS t(i);`;
}
