import { describe, expect, it } from 'vitest';
import { formatDuration } from '../../src/cli/check-table.js';
import { buildCheckReport } from '../../src/runner/check-report.js';
import { RESOURCES } from '../../src/shopify/resources.js';
import { hasScope, missingScopes } from '../../src/shopify/scopes.js';
import { rateTier } from '../../src/shopify/tiers.js';
import { CHAIN_MARGIN } from '../../src/source/chain-plan.js';
import type { ShopCheck } from '../../src/source/index.js';

describe('scopes a backup needs', () => {
  it.each([
    [['read_products'], 'read_products', true],
    [['write_products'], 'read_products', true],
    [['read_products'], 'write_products', false],
    [['write_orders'], 'read_all_orders', false],
    [[], 'read_orders', false],
  ])('hasScope(%j, %s) is %s', (granted, scope, expected) => {
    expect(hasScope(granted, scope)).toBe(expected);
  });

  it.each([
    [['read_products', 'read_customers', 'read_orders', 'read_all_orders'], RESOURCES, []],
    [['write_products', 'write_customers', 'write_orders', 'read_all_orders'], RESOURCES, []],
    [['read_products', 'read_customers', 'read_orders'], RESOURCES, ['read_all_orders']],
    [['read_orders'], RESOURCES, ['read_products', 'read_customers', 'read_all_orders']],
    [['read_products'], ['products'], []],
    [[], ['orders'], ['read_orders', 'read_all_orders']],
  ] as const)('missingScopes(%j, %j) is %j', (granted, resources, expected) => {
    expect(missingScopes(granted, resources)).toEqual(expected);
  });
});

describe('rateTier: the plan a bucket size implies', () => {
  it.each([
    [40, 'basic'],
    [80, 'advanced'],
    [400, 'plus'],
    [320, 'custom'],
    [41, 'custom'],
    [undefined, 'unlimited'],
  ] as const)('%s → %s', (bucket, tier) => {
    expect(rateTier(bucket)).toBe(tier);
  });
});

describe('formatDuration', () => {
  it.each([
    [850, '850 ms'],
    [42_000, '42 s'],
    [200_000, '3 min 20 s'],
    [7_500_000, '2 h 05 min'],
  ])('%d ms → %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });
});

describe('buildCheckReport', () => {
  const all = ['read_products', 'read_customers', 'read_orders', 'read_all_orders'];
  const check = (over: Partial<ShopCheck>): ShopCheck => ({
    scopes: all,
    records: { products: 1_000, customers: 10_000, orders: 50_000 },
    bucketMax: 40,
    roundTrips: { countMs: 300, pageMs: { products: 300, customers: 300, orders: 300 } },
    apiVersion: '2022-01',
    ...over,
  });
  const request = { shop: 'my-shop.myshopify.com', resources: RESOURCES, depth: 20 };

  it('a Basic shop with every scope: ok, the minimum requests and the tier-leak estimate', () => {
    const report = buildCheckReport(check({}), request);
    expect(report.ok).toBe(true);
    expect(report.problems).toEqual([]);
    expect(report.notes).toEqual([]);
    expect(report.bucket).toEqual({ size: 40, tier: 'basic', leak_per_second: 2 });
    // 4 + 40 + 200 pages of 250, a count before and after each resource.
    expect(report.estimate?.requests).toBe(250);
    // Past the bucket's room the leak decides: (250 − 40) requests at 2/s.
    expect(report.estimate?.duration_ms).toBe(105_000);
    expect(report.resources.orders).toEqual({ records: 50_000, filters: { status: 'any' } });
  });

  it('a Plus shop: the round trips decide, each kind its own', () => {
    const report = buildCheckReport(check({ bucketMax: 400 }), request);
    expect(report.bucket).toEqual({ size: 400, tier: 'plus', leak_per_second: 20 });
    // 199 orders pages after the first one in 16 windows: a count, 1 + 13 pages and a count in a row, with the margin.
    expect(report.estimate?.duration_ms).toBe((2 * 300 + 14 * 300) * CHAIN_MARGIN);
    const slowPages = buildCheckReport(
      check({ bucketMax: 400, roundTrips: { countMs: 300, pageMs: { products: 300, customers: 300, orders: 3_000 } } }),
      request,
    );
    expect(slowPages.round_trip_ms).toEqual({ count: 300, page: { products: 300, customers: 300, orders: 3_000 } });
    expect(slowPages.estimate?.duration_ms).toBeGreaterThan(8 * (report.estimate?.duration_ms as number));
  });

  it('missing read_all_orders is a problem that says what a backup would lose', () => {
    const report = buildCheckReport(check({ scopes: all.slice(0, 3) }), request);
    expect(report.ok).toBe(false);
    expect(report.scopes.missing).toEqual(['read_all_orders']);
    expect(report.problems).toEqual([expect.stringMatching(/orders older than 60 days are invisible/)]);
  });

  it('a resource the token may not read has no count and stays out of the estimate', () => {
    const report = buildCheckReport(
      check({ scopes: ['read_orders', 'read_all_orders'], records: { orders: 500 } }),
      request,
    );
    expect(report.resources.products).toEqual({ records: null, filters: { status: 'active,archived,draft' } });
    expect(report.problems).toEqual([
      expect.stringMatching(/^read_products is missing: the token cannot read products/),
      expect.stringMatching(/^read_customers is missing: the token cannot read customers/),
    ]);
    expect(report.estimate?.requests).toBe(4);
    expect(report.round_trip_ms).toEqual({ count: 300, page: { orders: 300 } });
  });

  it('nothing readable: no estimate', () => {
    const report = buildCheckReport(check({ scopes: [], records: {}, roundTrips: undefined }), request);
    expect(report.estimate).toBeNull();
    expect(report.round_trip_ms).toBeNull();
  });

  it('a shop that falls forward gets a note, not a problem; no limit is reported as such', () => {
    const report = buildCheckReport(check({ apiVersion: '2025-01', bucketMax: undefined }), request);
    expect(report.ok).toBe(true);
    expect(report.api_version).toEqual({ requested: '2022-01', answered: '2025-01' });
    expect(report.notes).toEqual([expect.stringMatching(/answers with API version 2025-01, not the 2022-01/)]);
    expect(report.bucket).toEqual({ size: null, tier: 'unlimited', leak_per_second: null });
  });
});
