import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { API_PREFIX } from '../../src/shopify/resources.js';
import { type RunningShop, startShop } from '../../src/simulator/index.js';
import { startCli } from '../helpers/cli.js';

const TOKEN = 'shpat_live_shop_2c9e';
const CUSTOMERS = 1000;
let out: string;
let shop: RunningShop | undefined;

beforeAll(async () => {
  out = await mkdtemp(join(tmpdir(), 'shopsnap-live-'));
});

afterEach(async () => {
  await shop?.close();
  shop = undefined;
});

afterAll(async () => {
  await rm(out, { recursive: true, force: true });
});

/**
 * A shop whose customers are crawled one page at a time (`--depth 1`: one since_id chain, ids ascending), each page
 * taking a while, so the test can change the shop between the first page and the rest.
 */
async function slowShop(faults: Parameters<typeof startShop>[0] = {}): Promise<RunningShop> {
  shop = await startShop({
    seed: 16,
    products: 0,
    customers: CUSTOMERS,
    orders: 0,
    token: TOKEN,
    latency: { listMs: 200 },
    ...faults,
  });
  return shop;
}

function backup(running: RunningShop, name: string) {
  return startCli(
    ['backup', '--shop', running.url, '--out', join(out, name), '--resources', 'customers', '--depth', '1', '--json'],
    { env: { SHOPSNAP_TOKEN: TOKEN } },
  );
}

/** Resolves once the shop has built its first customers page (pages are built when the request arrives). */
async function firstPageServed(running: RunningShop): Promise<void> {
  while ((running.stats().byPath['GET /customers.json'] ?? 0) < 1) await new Promise((r) => setTimeout(r, 5));
}

async function call(running: RunningShop, method: string, path: string, body?: unknown): Promise<unknown> {
  const response = await fetch(`${running.url}${API_PREFIX}/${path}`, {
    method,
    headers: { 'x-shopify-access-token': TOKEN, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  expect(response.status, `${method} ${path}`).toBeLessThan(300);
  return response.json();
}

/** The run's exit code and the manifest it printed (`--json`). */
async function finished(run: ReturnType<typeof backup>, code: number) {
  const result = await run.done;
  expect(result.code, result.stderr).toBe(code);
  return JSON.parse(result.stdout).manifest;
}

const idsOf = (running: RunningShop) => [...running.records('customers')].map((customer) => String(customer.id));

async function newCustomer(running: RunningShop, email: string): Promise<string> {
  const created = (await call(running, 'POST', 'customers.json', { customer: { email } })) as {
    customer: { id: number };
  };
  return String(created.customer.id);
}

describe('a shop that changes while it is crawled', () => {
  it('a create and a delete mid-crawl: counts hold, one more exported, the new record shows it → drift, exit 0', async () => {
    const running = await slowShop();
    const lowest = idsOf(running)[0] as string;
    const run = backup(running, 'create-delete');
    await firstPageServed(running);
    // The first page (lowest ids) is already served; the new customer has the highest id and comes in a later page.
    await call(running, 'DELETE', `customers/${lowest}.json`);
    await newCustomer(running, 'mid-crawl@example.com');
    const manifest = await finished(run, 0);
    expect(manifest.status).toBe('complete');
    expect(manifest.resources.customers).toMatchObject({
      count_before: CUSTOMERS,
      count_after: CUSTOMERS,
      exported: CUSTOMERS + 1,
      check: 'drift',
      drift: 0,
      changes_seen: { exported: 1 },
    });
    // The exported records decided it: no count of changed records was asked for.
    expect(manifest.resources.customers.changes_seen.counted).toBeUndefined();
    expect(running.stats().byPath['GET /customers/count.json']).toBe(2);
  });

  it('a change no exported record shows (created where the crawl had passed) is found by one count → drift, exit 0', async () => {
    const running = await slowShop();
    const highest = idsOf(running).at(-1) as string;
    const run = backup(running, 'unseen-create');
    await firstPageServed(running);
    // The highest id is not crawled yet: it goes; the new customer stays out of every list, as a record created in a
    // window whose chain has ended would.
    await call(running, 'DELETE', `customers/${highest}.json`);
    running.setFaults({ hiddenFromLists: [await newCustomer(running, 'behind-the-crawl@example.com')] });
    const manifest = await finished(run, 0);
    expect(manifest.resources.customers).toMatchObject({
      count_before: CUSTOMERS,
      count_after: CUSTOMERS,
      exported: CUSTOMERS - 1,
      check: 'drift',
      changes_seen: { exported: 0, counted: 1 },
    });
    expect(running.stats().byPath['GET /customers/count.json']).toBe(3);
  });

  it('a server that silently drops a record from its listing while nothing changes → mismatch, exit 3', async () => {
    const probe = await slowShop();
    const dropped = idsOf(probe)[500] as string;
    await probe.close();
    const running = await slowShop({ faults: { hiddenFromLists: [dropped] } });
    const manifest = await finished(backup(running, 'silent-drop'), 3);
    expect(manifest.status).toBe('incomplete');
    expect(manifest.resources.customers).toMatchObject({
      count_before: CUSTOMERS,
      count_after: CUSTOMERS,
      exported: CUSTOMERS - 1,
      check: 'mismatch',
      changes_seen: { exported: 0, counted: 0 },
    });
  });
});
