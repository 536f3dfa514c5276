import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_PREFIX } from '../../src/shopify/resources.js';
import { type RunningShop, startShop } from '../../src/simulator/index.js';
import { runCli } from '../helpers/cli.js';

const TOKEN = 'shpat_shrink_5e1d';
let shop: RunningShop;
let out: string;

beforeAll(async () => {
  shop = await startShop({ seed: 5, products: 20, customers: 150, orders: 30, token: TOKEN });
  out = await mkdtemp(join(tmpdir(), 'shopsnap-shrink-'));
});

afterAll(async () => {
  await shop.close();
  await rm(out, { recursive: true, force: true });
});

async function backup() {
  const result = await runCli(['backup', '--shop', shop.url, '--out', out, '--json'], {
    env: { SHOPSNAP_TOKEN: TOKEN },
  });
  return { ...result, summary: result.code === 0 || result.code === 8 ? JSON.parse(result.stdout) : undefined };
}

/** What a revoked scope or a new default filter looks like from outside: most records gone from one list. */
async function hideCustomers(keep: number): Promise<void> {
  const ids = [...shop.records('customers')].map((customer) => String(customer.id)).slice(keep);
  for (const id of ids) {
    const response = await fetch(`${shop.url}${API_PREFIX}/customers/${id}.json`, {
      method: 'DELETE',
      headers: { 'x-shopify-access-token': TOKEN },
    });
    expect(response.status).toBe(200);
  }
}

describe('a snapshot that shrank sharply against the last complete one', () => {
  it('is kept but flagged (suspicious_shrink), not promoted, and exits 8', async () => {
    const first = await backup();
    expect(first.code, first.stderr).toBe(0);
    expect(first.summary.manifest.status).toBe('complete');

    await hideCustomers(30);
    const shrunk = await backup();
    expect(shrunk.code, shrunk.stderr).toBe(8);
    expect(shrunk.summary.manifest.status).toBe('incomplete');
    expect(shrunk.summary.manifest.suspicious_shrink).toEqual([
      { resource: 'customers', previous: 150, current: 30, removed: 120 },
    ]);
    const written = JSON.parse(await readFile(join(shrunk.summary.location, 'manifest.json'), 'utf8'));
    expect(written.suspicious_shrink).toEqual(shrunk.summary.manifest.suspicious_shrink);
    expect(shrunk.stderr).toMatch(/suspicious shrink/);

    // Not promoted: the next run still compares against the first snapshot, not the shrunken one.
    const again = await backup();
    expect(again.code, again.stderr).toBe(8);
    expect(again.summary.manifest.suspicious_shrink).toEqual([
      { resource: 'customers', previous: 150, current: 30, removed: 120 },
    ]);
  });
});
