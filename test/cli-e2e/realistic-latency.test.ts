import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../../src/cli/exit-codes.js';
import { RESOURCES } from '../../src/shopify/resources.js';
import { LATENCY_PRESETS, type RunningShop, startShop } from '../../src/simulator/index.js';
import { lastLine, runCli } from '../helpers/cli.js';
import { rawIds } from '../helpers/snapshot-files.js';

const TOKEN = 'shpat_realistic_latency_81c4';

let shop: RunningShop;
let work: string;

beforeAll(async () => {
  // A Basic bucket and the realistic model: 250-order pages of about 1.9 s, counts of 0.15 s, a lognormal tail, so
  // answers come back out of order and far apart, as from a real shop.
  shop = await startShop({
    seed: 31,
    products: 40,
    customers: 150,
    orders: 400,
    bigIdShare: 0.05,
    rate: 'standard',
    latency: 'realistic',
    token: TOKEN,
  });
  work = await mkdtemp(join(tmpdir(), 'shopsnap-realistic-'));
});

afterAll(async () => {
  await shop.close();
  await rm(work, { recursive: true, force: true });
});

describe('shopsnap backup against a shop with realistic latency', { timeout: 120_000 }, () => {
  it('completes exactly: every record once, every check ok', async () => {
    const out = join(work, 'out');
    const result = await runCli(['backup', '--shop', shop.url, '--out', out, '--json'], {
      env: { SHOPSNAP_TOKEN: TOKEN },
    });
    expect(result.code, result.stderr).toBe(EXIT.complete);
    const { manifest, location } = JSON.parse(result.stdout);
    expect(manifest.status).toBe('complete');
    for (const resource of RESOURCES) {
      const ids = await rawIds(location, resource);
      expect(new Set(ids).size, `${resource}: no id twice`).toBe(ids.length);
      expect([...ids].sort(), resource).toEqual([...shop.records(resource)].map((record) => String(record.id)).sort());
      expect(manifest.resources[resource]).toMatchObject({ check: 'ok', exported: ids.length });
    }
    expect(shop.stats().throttled).toBe(0);
  });

  it('keeps a Basic bucket busy with several chains per resource when pages are slow and counts instant', async () => {
    // Pages of 250 orders take about 1.9 s, counts nothing: a count is no yardstick for a page. One chain per
    // resource would leave the leak (2/s) idle; the crawl cuts each resource into windows from its first pages on.
    const sizes = { products: 3_000, customers: 4_000, orders: 6_000 };
    const slowPages = await startShop({
      seed: 32,
      ...sizes,
      rate: 'standard',
      latency: { ...LATENCY_PRESETS.realistic, countMs: 0 },
      prerender: true,
    });
    try {
      const out = join(work, 'windows');
      const backup = await runCli(['backup', '--shop', slowPages.url, '--out', out, '--formats', 'raw', '--verbose'], {
        env: { SHOPSNAP_TOKEN: slowPages.token },
      });
      expect(backup.code, backup.stderr.slice(-2000)).toBe(EXIT.complete);
      const manifest = JSON.parse(await readFile(join(lastLine(backup.stdout), 'manifest.json'), 'utf8'));
      for (const [resource, records] of Object.entries(sizes)) {
        expect(manifest.resources[resource].exported).toBe(records);
      }
      const windows = backup.stderr
        .split('\n')
        .filter((text) => text.includes('"crawl finished"'))
        .map((text) => JSON.parse(text) as { resource: string; windows: number });
      expect(windows.map(({ resource }) => resource).sort()).toEqual(['customers', 'orders', 'products']);
      for (const { resource, windows: count } of windows) expect(count, resource).toBeGreaterThan(1);
      expect(slowPages.stats().throttled).toBe(0);
    } finally {
      await slowPages.close();
    }
  });
});
