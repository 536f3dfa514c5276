import type { Logger } from '../log.js';
import type { JsonObject } from '../shopify/json.js';
import type { ResourceName } from '../shopify/resources.js';
import { openShopSession } from '../source/index.js';
import type { CrawlProgress } from '../source/resource-crawl.js';
import type { ShopClient } from '../source/shop-client.js';
import { TargetIndex } from './records/natural-keys.js';

/** A record of the target shop as listed: its exact id and its lossless parse. */
export interface TargetRecord {
  id: string;
  record: JsonObject;
}

/** What the target shop holds, read by the backup's own crawl before anything is written. */
export interface TargetShop {
  indexes: Partial<Record<ResourceName, TargetIndex<TargetRecord>>>;
  /** Every record of each crawled resource by id (the index keeps them for matching, this for --prune). */
  records: Partial<Record<ResourceName, Map<string, TargetRecord>>>;
  /** The shop's count of each crawled resource before the restore (the crawl's count, with its filters). */
  counts: Partial<Record<ResourceName, number>>;
  /** Requests the crawl sent, retries included. */
  requests: number;
}

/**
 * Lists every record of `resources` in the target shop with the crawl a backup uses (its chains, pacing and retries),
 * through `client`: the crawl and the writes after it share one pacer and one picture of the shop's bucket.
 */
export async function indexTarget(options: {
  client: ShopClient;
  shopUrl: string;
  token: string;
  resources: readonly ResourceName[];
  depth: number;
  signal?: AbortSignal | undefined;
  logger?: Logger | undefined;
  onProgress?: ((progress: CrawlProgress) => void) | undefined;
}): Promise<TargetShop> {
  const session = openShopSession({
    client: options.client,
    shopUrl: options.shopUrl,
    token: options.token,
    depth: options.depth,
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    ...(options.logger === undefined ? {} : { logger: options.logger }),
    ...(options.onProgress === undefined ? {} : { onProgress: options.onProgress }),
  });
  const shop: TargetShop = { indexes: {}, records: {}, counts: {}, requests: 0 };
  try {
    await Promise.all(
      options.resources.map(async (resource) => {
        const handle = session.crawl(resource);
        const index = new TargetIndex<TargetRecord>(resource);
        const byId = new Map<string, TargetRecord>();
        for await (const crawled of handle.records) {
          const record = crawled.record;
          const target = { id: crawled.id, record };
          index.add(record, target);
          byId.set(crawled.id, target);
        }
        const report = await handle.report;
        shop.indexes[resource] = index;
        shop.records[resource] = byId;
        shop.counts[resource] = report.countBefore;
      }),
    );
    shop.requests = session.stats().requests;
    return shop;
  } finally {
    session.close();
  }
}
