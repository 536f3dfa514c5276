import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningShop, startShop } from '../../src/simulator/index.js';
import { runCli } from '../helpers/cli.js';
import { clientFor, customersWithoutOrders, type ShopClient } from '../simulator/shop-client.js';

const TOKEN = 'shpat_changes_9b2f';
let shop: RunningShop;
let api: ShopClient;
let out: string;

beforeAll(async () => {
  shop = await startShop({ seed: 21, products: 10, customers: 100, orders: 20, token: TOKEN, bigIdShare: 0.2 });
  api = clientFor(shop);
  out = await mkdtemp(join(tmpdir(), 'shopsnap-changes-'));
});

afterAll(async () => {
  await shop.close();
  await rm(out, { recursive: true, force: true });
});

/** One night's backup: its exit code and manifest (as printed with --json, and as written). */
async function night(extra: string[] = []) {
  const result = await runCli(['backup', '--shop', shop.url, '--out', out, '--json', ...extra], {
    env: { SHOPSNAP_TOKEN: TOKEN },
  });
  expect([0, 8], result.stderr).toContain(result.code);
  const { manifest, location } = JSON.parse(result.stdout);
  expect(JSON.parse(await readFile(join(location, 'manifest.json'), 'utf8'))).toEqual(manifest);
  return { code: result.code, manifest, stderr: result.stderr };
}

const customerIds = () => [...shop.records('customers')].map((customer) => String(customer.id));
/** Customers Shopify lets an app delete: those without orders. */
const deletableIds = () => customersWithoutOrders(shop).map((customer) => String(customer.id));

async function createCustomers(count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    expect(
      (await api.post('/customers.json', { customer: { email: `new-${Date.now()}-${i}@example.com` } })).status,
    ).toBe(201);
  }
}

async function deleteCustomers(ids: string[]): Promise<void> {
  for (const id of ids) expect((await api.delete(`/customers/${id}.json`)).status).toBe(200);
}

const unchanged = { added: 0, removed: 0, changed: 0 };

describe('changes recorded with every snapshot, and the shrink guard that reads them', () => {
  let first: string;
  let second: string;

  it('a first snapshot has no changes', async () => {
    const { code, manifest } = await night();
    expect(code).toBe(0);
    expect(manifest.changes).toBeUndefined();
    first = manifest.snapshot_id;
  });

  it("the next night's snapshot records what was added, removed and changed since the last complete one", async () => {
    const gone = deletableIds()[0] as string;
    await deleteCustomers([gone]);
    for (const id of customerIds().slice(0, 3)) {
      expect((await api.put(`/customers/${id}.json`, { customer: { id, note: 'called back' } })).status).toBe(200);
    }
    await createCustomers(2);
    const { code, manifest } = await night();
    expect(code).toBe(0);
    expect(manifest.changes).toEqual({
      since: first,
      resources: { products: unchanged, customers: { added: 2, removed: 1, changed: 3 }, orders: unchanged },
    });
    second = manifest.snapshot_id;
  });

  it('most records replaced by new ones: the count holds, but the removals are a suspicious shrink (exit 8)', async () => {
    const ids = customerIds();
    await deleteCustomers(deletableIds().slice(0, 70));
    await createCustomers(70);
    const { code, manifest, stderr } = await night();
    expect(code).toBe(8);
    expect(manifest.status).toBe('incomplete');
    expect(manifest.resources.customers.exported).toBe(ids.length);
    expect(manifest.changes.since).toBe(second);
    expect(manifest.changes.resources.customers).toEqual({ added: 70, removed: 70, changed: 0 });
    expect(manifest.suspicious_shrink).toEqual([
      { resource: 'customers', previous: ids.length, current: ids.length, removed: 70 },
    ]);
    expect(stderr).toMatch(/suspicious shrink/);
  });

  it('--accept-shrink makes the run complete and the new baseline', async () => {
    const accepted = await night(['--accept-shrink']);
    expect(accepted.code).toBe(0);
    expect(accepted.manifest).toMatchObject({ status: 'complete', shrink_accepted: true });
    // Still measured against the last complete snapshot: the shrunken one was never promoted.
    expect(accepted.manifest.changes.since).toBe(second);
    expect(accepted.manifest.suspicious_shrink).toHaveLength(1);
    const after = await night();
    expect(after.code).toBe(0);
    expect(after.manifest.changes).toEqual({
      since: accepted.manifest.snapshot_id,
      resources: { products: unchanged, customers: unchanged, orders: unchanged },
    });
    expect(after.manifest.suspicious_shrink).toBeUndefined();
  });

  it('a job file accepts a shop’s shrink with accept_shrink', async () => {
    await deleteCustomers(deletableIds().slice(0, 80));
    const job = join(out, 'job.yaml');
    const yaml = (accept: boolean) =>
      `shops: [{shop: "${shop.url}", token_env: SHOP_TOKEN${accept ? ', accept_shrink: true' : ''}}]\nout: ${out}\n`;
    await writeFile(job, yaml(false));
    const refused = await runCli(['run', job, '--json'], { env: { SHOP_TOKEN: TOKEN } });
    expect(refused.code, refused.stderr).toBe(8);
    await writeFile(job, yaml(true));
    const accepted = await runCli(['run', job, '--json'], { env: { SHOP_TOKEN: TOKEN } });
    expect(accepted.code, accepted.stderr).toBe(0);
    const [outcome] = JSON.parse(accepted.stdout).shops;
    expect(outcome).toMatchObject({ status: 'complete', shrink_accepted: true });
    expect(outcome.suspicious_shrink[0]).toMatchObject({ resource: 'customers', removed: 80 });
  });
});
