import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CheckReport } from '../../src/runner/check-report.js';
import { RESOURCES } from '../../src/shopify/resources.js';
import { LATENCY_PRESETS, type ShopOptions, startShop } from '../../src/simulator/index.js';
import { failureLine, runCli } from '../helpers/cli.js';

const CANARY = 'shpat_CANARY_check_5e1d7a';

/** `shopsnap check` with the built CLI against a simulated shop started with `options`. */
async function check(options: ShopOptions, args: string[] = [], token = CANARY) {
  const shop = await startShop({ seed: 9, products: 40, customers: 300, orders: 600, token: CANARY, ...options });
  try {
    const result = await runCli(['check', '--shop', shop.url, ...args], { env: { SHOPSNAP_TOKEN: token } });
    expect(`${result.stdout}${result.stderr}`).not.toContain(CANARY);
    return { result, shop };
  } finally {
    await shop.close();
  }
}

describe('shopsnap check (built CLI, simulated shop)', () => {
  it('a ready shop: exit 0, a table of counts with the crawl’s filters, the tier, the answered version and an estimate', async () => {
    const { result, shop } = await check({ rate: 'standard', answeredApiVersion: '2025-01' });
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.split('\n');
    expect(lines).toContain('token        accepted');
    expect(lines.find((line) => line.startsWith('scopes'))).toMatch(/read_all_orders \(everything a backup needs\)$/);
    expect(lines).toContain('api version  2022-01 requested, 2025-01 answered');
    expect(lines.find((line) => line.startsWith('bucket'))).toMatch(/^bucket +40 requests: Basic .*leaking 2\/s/);
    expect(lines.find((line) => line.startsWith('round trip'))).toMatch(
      /^round trip +count [\d,]+ ms, a page: products [\d,]+ ms, customers [\d,]+ ms, orders [\d,]+ ms$/,
    );
    // Counts with the crawl's own filters see every status: the shop's whole size.
    expect(result.stdout).toMatch(
      new RegExp(`^products +${shop.count('products')} {2}status=active,archived,draft$`, 'm'),
    );
    expect(result.stdout).toMatch(/^orders +600 {2}status=any$/m);
    expect(result.stdout).toMatch(/^customers +300 {2}\(none\)$/m);
    // 1 + 2 + 3 pages of 250, and a count before and after each resource.
    expect(result.stdout).toMatch(/^estimate +12 requests, about .* with --depth 20$/m);
    expect(result.stdout).toMatch(/an estimate, not a measurement/);
    expect(result.stdout).toMatch(/^note: the shop answers with API version 2025-01/m);
    expect(result.stdout.trimEnd().split('\n').at(-1)).toBe(`OK: ready for shopsnap backup --shop ${shop.url}`);
  });

  it('--json: the findings as one object', async () => {
    const { result, shop } = await check({ rate: 'plus' }, ['--json', '--depth', '5']);
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout) as CheckReport;
    expect(report.ok).toBe(true);
    for (const resource of RESOURCES) expect(report.resources[resource]?.records).toBe(shop.count(resource));
    expect(report.bucket).toEqual({ size: 400, tier: 'plus', leak_per_second: 20 });
    expect(report.api_version).toEqual({ requested: '2022-01', answered: '2022-01' });
    expect(report.estimate).toEqual({ requests: 12, duration_ms: expect.any(Number), depth: 5 });
    const ms = expect.any(Number);
    expect(report.round_trip_ms).toEqual({ count: ms, page: { products: ms, customers: ms, orders: ms } });
    expect(report.problems).toEqual([]);
  });

  it('estimates the backup from a count’s round trip and each resource’s page’s: within 0.5×–2× of the real backup', {
    timeout: 120_000,
  }, async () => {
    // Pages take about two seconds (250 orders), counts nothing: the slowest count would make the crawl look ten
    // times shorter than it is. 5,000 records on a Basic bucket: 26 requests, within the bucket's room, so the
    // estimate rests on the pages' round trips alone. The seed's first pages drew answers of typical speed; one page
    // per resource is all a check fetches, and a shop whose first pages answer unusually fast or slow skews it.
    const shop = await startShop({
      seed: 44,
      products: 1_000,
      customers: 1_500,
      orders: 2_500,
      rate: 'standard',
      latency: { ...LATENCY_PRESETS.realistic, countMs: 0 },
      prerender: true,
    });
    const out = await mkdtemp(join(tmpdir(), 'shopsnap-check-estimate-'));
    try {
      const env = { SHOPSNAP_TOKEN: shop.token };
      const checked = await runCli(['check', '--shop', shop.url, '--json'], { env });
      expect(checked.code, checked.stderr).toBe(0);
      const report = JSON.parse(checked.stdout) as CheckReport;
      const page = report.round_trip_ms?.page ?? {};
      expect(Object.keys(page)).toEqual(['products', 'customers', 'orders']);
      const started = performance.now();
      const backup = await runCli(['backup', '--shop', shop.url, '--out', out], { env });
      const backupMs = performance.now() - started;
      expect(backup.code, backup.stderr.slice(-2000)).toBe(0);
      const estimateMs = report.estimate?.duration_ms as number;
      const reading = `estimate ${estimateMs} ms, backup ${Math.round(backupMs)} ms, ${JSON.stringify(report.round_trip_ms)}`;
      expect(estimateMs, reading).toBeGreaterThanOrEqual(0.5 * backupMs);
      expect(estimateMs, reading).toBeLessThanOrEqual(2 * backupMs);
    } finally {
      await shop.close();
      await rm(out, { recursive: true, force: true });
    }
  });

  it('without read_all_orders: exit 5, and it says plainly that older orders are invisible', async () => {
    const scopes = ['read_products', 'read_customers', 'read_orders'];
    const { result } = await check({ scopes });
    expect(result.code, result.stderr).toBe(5);
    expect(result.stdout).toMatch(/^scopes +MISSING read_all_orders/m);
    expect(result.stdout).toMatch(/^problem: read_all_orders is missing: orders older than 60 days are invisible/m);
    expect(result.stdout).toMatch(/^FAILED: grant the missing scopes/m);
    // The shop shows this token only its recent orders: none of the generated history.
    expect(result.stdout).toMatch(/^orders +0 {2}status=any$/m);

    const json = await check({ scopes }, ['--json']);
    expect(json.result.code).toBe(5);
    const report = JSON.parse(json.result.stdout) as CheckReport;
    expect(report.ok).toBe(false);
    expect(report.scopes.missing).toEqual(['read_all_orders']);
  });

  it('a missing read scope: exit 5, that resource uncounted', async () => {
    const { result } = await check({ scopes: ['read_products', 'read_orders', 'read_all_orders'] });
    expect(result.code, result.stderr).toBe(5);
    expect(result.stdout).toMatch(/^customers +no scope {2}\(none\)$/m);
    expect(result.stdout).toMatch(/^problem: read_customers is missing: the token cannot read customers at all/m);
  });

  it('a wrong token: exit 5, one line naming the refusal', async () => {
    const { result } = await check({}, [], 'shpat_wrong_token_for_check');
    expect(result.code).toBe(5);
    expect(failureLine(result.stderr)).toMatch(/rejected the access token \(401 Unauthorized\)/);
    expect(result.stdout).toBe('');
  });

  it.each([
    [402, /frozen \(402 Payment Required\)/],
    [423, /locked \(423 Locked\)/],
  ] as const)('a shop answering %d: exit 6', async (status, message) => {
    const { result } = await check({ faults: { failFromRequest: { after: 0, status } } });
    expect(result.code).toBe(6);
    expect(failureLine(result.stderr)).toMatch(message);
  });

  it('an unreachable shop: exit 1, the address named', async () => {
    const gone = await startShop({ token: CANARY });
    await gone.close();
    const result = await runCli(['check', '--shop', gone.url], { env: { SHOPSNAP_TOKEN: CANARY } });
    expect(result.code).toBe(1);
    expect(failureLine(result.stderr)).toContain(gone.url);
  });

  it('no shop: exit 2', async () => {
    const result = await runCli(['check'], { env: { SHOPSNAP_TOKEN: CANARY } });
    expect(result.code).toBe(2);
    expect(failureLine(result.stderr)).toMatch(/--shop .* is required/);
  });
});
