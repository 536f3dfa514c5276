import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../../src/cli/exit-codes.js';
import { RESOURCES } from '../../src/shopify/resources.js';
import { type RunningShop, startShop } from '../../src/simulator/index.js';
import { runCli } from '../helpers/cli.js';
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

describe('shopsnap backup against a shop with realistic latency', () => {
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
  });
});
