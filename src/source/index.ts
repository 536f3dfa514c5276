export type { CrawlBarrier, CrawlResumeState } from './crawl-state.js';
export * from './errors.js';
export type { CrawledRecord } from './list-page.js';
export type { CrawlProgress, ResourceCrawlReport } from './resource-crawl.js';
export type { RetryPolicy } from './retry-policy.js';
export { expectedCrawlMs, probeShop, type ShopProbe } from './shop-probe.js';
export {
  openShopSession,
  type ResourceCrawlHandle,
  type ShopSession,
  type ShopSessionOptions,
} from './shop-session.js';
