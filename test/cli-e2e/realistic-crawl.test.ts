import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LATENCY_PRESETS, startShop } from '../../src/simulator/index.js';
import { lastLine, runCli } from '../helpers/cli.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

describe('the crawl against a realistic shop (built CLI)', { timeout: 120_000 }, () => {
  it('keeps a Basic bucket busy with several chains per resource when pages are slow and counts instant', async () => {
    // Pages of 250 orders take about 1.9 s, counts nothing: a count is no yardstick for a page. One chain per
    // resource would leave the leak (2/s) idle; the crawl cuts each resource into windows from the first pages on.
    const sizes = { products: 3_000, customers: 4_000, orders: 6_000 };
    const shop = await startShop({
      seed: 31,
      ...sizes,
      rate: 'standard',
      latency: { ...LATENCY_PRESETS.realistic, countMs: 0 },
      prerender: true,
    });
    const out = await mkdtemp(join(tmpdir(), 'shopsnap-realistic-'));
    cleanups.push(
      () => shop.close(),
      () => rm(out, { recursive: true, force: true }),
    );
    const backup = await runCli(['backup', '--shop', shop.url, '--out', out, '--formats', 'raw', '--verbose'], {
      env: { SHOPSNAP_TOKEN: shop.token },
    });
    expect(backup.code, backup.stderr.slice(-2000)).toBe(0);
    const manifest = JSON.parse(await readFile(join(lastLine(backup.stdout), 'manifest.json'), 'utf8'));
    expect(manifest.status).toBe('complete');
    for (const [resource, records] of Object.entries(sizes))
      expect(manifest.resources[resource].exported).toBe(records);
    const windows = Object.fromEntries(
      backup.stderr
        .split('\n')
        .filter((text) => text.includes('"crawl finished"'))
        .map((text) => JSON.parse(text) as { resource: string; windows: number })
        .map(({ resource, windows }) => [resource, windows]),
    );
    expect(Object.keys(windows).sort()).toEqual(['customers', 'orders', 'products']);
    for (const count of Object.values(windows)) expect(count).toBeGreaterThan(1);
    expect(shop.stats().throttled).toBe(0);
  });
});
