/**
 * `pinrecon catalog`: snapshots the partner's catalog (collections, products, prices, costs, stock) into the database.
 */
import type { Command } from 'commander';
import { snapshotCatalog, type CatalogSummary } from '../../pipelines/catalog/catalog.js';
import { action, withGlobalOptions, withJobWarehouse, type GlobalOptions } from '../context.js';
import { formatDuration, type Output } from '../../core/output.js';

/** `catalog` takes no option of its own: what it snapshots is the config's (api.country, currency, language). */
export type CatalogRequest = Record<string, never>;

/** The command line of `catalog` (issue 27: pure, tested in-process). */
export function parseCatalog(_options: GlobalOptions): CatalogRequest {
  return {};
}

export function registerCatalog(program: Command): void {
  withGlobalOptions(
    program
      .command('catalog')
      .description(
        'snapshot the ' +
          "partner's catalog (collection tree, products with prices and costs, product info, stock) into the database",
      ),
  )
    .addHelpText(
      'after',
      `
Every run adds a dated snapshot (catalog_snapshots, catalog_collections, catalog_products,
catalog_product_info, catalog_stock); none is replaced. catalog_current_products shows the latest one and
catalog_product_changes what changed between consecutive snapshots. The catalog query (country, currency,
language) comes from api.country / api.currency / api.language. Raw responses are kept under
extract.landingDir (default: landing/ beside the database) in catalog/<date>/<run>/.

Example:
  pinrecon catalog
  pinrecon query "SELECT * FROM catalog_product_changes"`,
    )
    .action(
      action<GlobalOptions, []>(async ({ config, output }, options) => {
        const request = parseCatalog(options);
        const summary = await withJobWarehouse(config, (warehouse) =>
          snapshotCatalog(warehouse, config, request, output),
        );
        printSummary(summary, output);
        output.document({ ok: true, ...summary });
      }),
    );
}

function printSummary(s: CatalogSummary, output: Output): void {
  output.result(
    [
      `catalog snapshot ${s.snapshotId} taken ${s.takenAt} (${s.country}/${s.currency}/${s.language})`,
      `${s.collections} collections · ${s.products} products (${s.listings} listings) · ` +
        `info ${s.productInfo} · stock ${s.stock} · failed product calls ${s.fetchErrors}` +
        `${s.fetchErrors > 0 ? ' — see the catalog_fetch_errors table' : ''}`,
      `requests ${s.requests} · retries ${s.retries} · 503s ${s.rateLimited} · elapsed ` +
        `${formatDuration(s.elapsedSeconds)}`,
      `raw responses in ${s.landingDir}`,
    ].join('\n'),
  );
}
