import { afterEach, describe, expect, it } from 'vitest';
import { parseJson } from '../../src/shopify/json.js';
import { API_PREFIX, RESOURCES } from '../../src/shopify/resources.js';
import { type FaultOptions, startShop, uniformLatency } from '../../src/simulator/index.js';
import { openShopSession } from '../../src/source/index.js';
import { recordingProxy } from './recording-proxy.js';

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

const SINGULAR: Record<string, string> = { products: 'product', customers: 'customer', orders: 'order' };
const EDITED_PER_RESOURCE = 5;

/**
 * Crawls a churning shop through a proxy that sees every copy served. Before the first page of each resource with a
 * few records reaches the crawler (the first full page, not the placement probe of two fields), the proxy also edits a
 * few of that page's records, so any later copy of them is newer. Returns each emitted record's updated_at and
 * tags, with the updated_at of every copy served.
 */
async function crawlChangingShop(faults: FaultOptions) {
  const shop = await startShop({
    seed: 11,
    // Enough records for several windows each (a single window needs no created_at filter).
    products: 1800,
    customers: 1900,
    orders: 2000,
    latency: uniformLatency(5),
    faults: { churn: { everyRequests: 1 }, ...faults },
  });
  closers.push(() => shop.close());
  const edited = new Set<string>();
  const editedResources = new Set<string>();
  const proxy = await recordingProxy(shop.url, async (resource, query, ids) => {
    if (query.has('fields') || ids.length < EDITED_PER_RESOURCE || editedResources.has(resource)) return;
    editedResources.add(resource);
    for (const id of ids.slice(0, EDITED_PER_RESOURCE)) {
      const response = await fetch(`${shop.url}${API_PREFIX}/${resource}/${id}.json`, {
        method: 'PUT',
        headers: { 'x-shopify-access-token': shop.token, 'content-type': 'application/json' },
        body: `{"${SINGULAR[resource]}":{"id":${id},"tags":"edited"}}`,
      });
      expect(response.status).toBe(200);
      edited.add(`${resource}:${id}`);
    }
  });
  closers.push(() => proxy.close());
  const session = openShopSession({ shopUrl: proxy.url, token: shop.token, depth: 6 });
  const crawled = await Promise.all(
    RESOURCES.map(async (resource) => {
      const { records, report } = session.crawl(resource);
      const emitted: Array<{ key: string; updatedAt: string; tags: string }> = [];
      for await (const record of records) {
        const { updated_at, tags } = parseJson(record.bytes.toString()) as { updated_at: string; tags: string };
        emitted.push({ key: `${resource}:${record.id}`, updatedAt: updated_at, tags });
      }
      return { emitted, report: await report };
    }),
  );
  session.close();
  return { crawled, served: proxy.served, edited };
}

const newest = (stamps: readonly string[]) => stamps.reduce((a, b) => (Date.parse(b) > Date.parse(a) ? b : a));

describe('newest updated_at wins', { timeout: 60_000 }, () => {
  it.each([
    ['the windowed crawl', {}, 'since_id'],
    ['the Link chain of a shop that ignores created_at', { ignoreFilters: 'created_at' as const }, 'Link chain'],
  ])('keeps the newest copy served of every record in %s while records change', async (_name, faults, strategy) => {
    const { crawled, served, edited } = await crawlChangingShop(faults);
    expect(edited.size).toBe(EDITED_PER_RESOURCE * RESOURCES.length);
    for (const { emitted, report } of crawled) {
      expect(report.strategy).toContain(strategy);
      expect(new Set(emitted.map((record) => record.key)).size).toBe(emitted.length);
      for (const { key, updatedAt } of emitted) {
        expect({ key, updatedAt }).toEqual({ key, updatedAt: newest(served.get(key) ?? []) });
      }
      const copies = emitted.reduce((sum, { key }) => sum + (served.get(key)?.length ?? 0), 0);
      expect(report.duplicatesDropped).toBeLessThanOrEqual(copies - emitted.length);
    }
    // A shop that pages by since_id but ignores created_at serves the first page and the first window's pages as
    // asked, and gives itself away only in the later windows; its Link chain then lists the first page again, after
    // the edit: the edited copy must be the one kept (a first-copy-wins crawl, or one that hands over the first page
    // on the first window's word, keeps the older one). The windowed crawl never lists the first page again, so the
    // copy it saw is the newest it was served.
    const linked = strategy === 'Link chain';
    const emitted = crawled.flatMap((resource) => resource.emitted).filter(({ key }) => edited.has(key));
    expect(emitted.map(({ key, tags }) => `${key} ${tags.includes('edited')}`).sort()).toEqual(
      [...edited].map((key) => `${key} ${linked}`).sort(),
    );
  });
});
