export { tierLeakPerSecond } from './bucket-model.js';
export type { CrawlBarrier, CrawlResumeState } from './crawl-state.js';
export * from './errors.js';
export type { CrawledRecord } from './list-page.js';
export type { CrawlProgress, ResourceCrawlReport } from './resource-crawl.js';
export type { RetryPolicy } from './retry-policy.js';
export { checkShop, type ShopCheck } from './shop-check.js';
export { expectedCrawlMs, minimumCrawlRequests, probeShop, type ShopProbe } from './shop-probe.js';
export {
  openShopSession,
  type ResourceCrawlHandle,
  type ShopSession,
  type ShopSessionOptions,
} from './shop-session.js';
