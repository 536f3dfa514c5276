import { RESOURCES, type ResourceName } from '../shopify/resources.js';
import { type RunningShop, startShop } from '../simulator/index.js';
import type { PageShape } from './crawl-bound.js';

/**
 * Child process of the benchmarks (startShopProcess): serves one simulated shop (options as JSON in argv[2]) so the
 * CLI's CPU and memory figures are its own. Prints `{"url","token","counts","pages"}` as one line — `pages` are the
 * pages of the fewest requests, 250 records each in id order with their products' variants, for the crawl's bound —
 * then serves until stdin closes and prints its statistics: what the shop saw, counted on its side.
 */
const PAGE_LIMIT = 250;
const options = JSON.parse(process.argv[2] ?? '{}');
const shop = await startShop(options);
const counts = Object.fromEntries(RESOURCES.map((resource) => [resource, shop.count(resource)]));
const pages = Object.fromEntries(RESOURCES.map((resource) => [resource, minimumPages(shop, resource)]));
process.stdout.write(`${JSON.stringify({ url: shop.url, token: shop.token, counts, pages })}\n`);
process.stdin.resume();
process.stdin.on('end', () => {
  process.stdout.write(`${JSON.stringify({ stats: shop.stats() })}\n`);
  void shop.close().then(() => process.exit(0));
});

function minimumPages(running: RunningShop, resource: ResourceName): PageShape[] {
  const records = [...running.records(resource)]
    .map((record) => ({ id: BigInt(record.id as bigint | number), variants: variantsOf(record.variants) }))
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const result: PageShape[] = [];
  for (let start = 0; start < records.length || result.length === 0; start += PAGE_LIMIT) {
    const page = records.slice(start, start + PAGE_LIMIT);
    const variants = page.reduce((sum, record) => sum + record.variants, 0);
    result.push(resource === 'products' ? { records: page.length, variants } : { records: page.length });
  }
  return result;
}

function variantsOf(value: unknown): number {
  return Array.isArray(value) ? value.length : 0;
}
