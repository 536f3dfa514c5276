/** The simulated Shopify shop: a real HTTP server speaking the Admin REST API 2022-01 over seeded, lazy data. */
export type { LatencyKind, LatencyModel, LatencyOptions, LatencyPreset, LatencyRequest } from './latency.js';
export { expectedLatencyMs, LATENCY_PRESETS, medianLatencyMs, uniformLatency } from './latency.js';
export type { FaultOptions, InjectedFaults, RatePreset, ShopOptions } from './options.js';
export { MAX_GENERATED_RECORDS, ShopOptionsError } from './options.js';
export type { BucketShape } from './rate-limit.js';
export { parseRate, RATE_PRESETS } from './rate-limit.js';
export type { RunningShop } from './server.js';
export { startShop } from './server.js';
export { formatShopTime, SHOP_TIME_ZONE } from './shop-time.js';
export { ONLINE_GATEWAYS } from './writes/orders.js';
