import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseJson, stringifyJson } from '../../src/shopify/json.js';
import { type ResourceName, SINGULAR } from '../../src/shopify/resources.js';
import { type RunningShop, startShop } from '../../src/simulator/index.js';
import { type Manifest, serializeManifest } from '../../src/snapshot/manifest.js';
import { failureLine, lastLine, runCli } from '../helpers/cli.js';
import { gunzipLines, rewriteRecord } from '../helpers/snapshot-files.js';
import { clientFor, deletableOrders } from '../simulator/shop-client.js';

const TOKEN = 'shpat_verify_live_3e1d';

let shop: RunningShop;
let work: string;
/** A snapshot written while the shop churned, then changed further: one record updated, one deleted. */
let snapshot: { location: string; manifest: Manifest; updated: string; deleted: string };

beforeAll(async () => {
  shop = await startShop({
    seed: 21,
    products: 20,
    customers: 40,
    orders: 60,
    token: TOKEN,
    bigIdShare: 0.2,
    faults: { churn: { everyRequests: 4 } },
  });
  work = await mkdtemp(join(tmpdir(), 'shopsnap-live-'));
  const run = await runCli(['backup', '--shop', shop.url, '--out', join(work, 'out'), '--formats', 'raw', '--json'], {
    env: { SHOPSNAP_TOKEN: TOKEN },
  });
  expect(run.code, run.stderr).toBe(0);
  const { location, manifest } = JSON.parse(run.stdout) as { location: string; manifest: Manifest };
  const client = clientFor(shop);
  const product = [...shop.records('products')][0];
  const updated = String(product?.id);
  expect(
    (await client.put(`/products/${updated}.json`, { product: { id: product?.id, title: 'Renamed' } })).status,
  ).toBe(200);
  // Shopify deletes a customer only without orders: one whose orders can all be deleted goes with them.
  const deletable = new Set(deletableOrders(shop).map((order) => String(order.id)));
  const ordersOf = (id: unknown) =>
    [...shop.records('orders')].filter((order) => (order.customer as { id?: unknown } | null)?.id === id);
  const customer = [...shop.records('customers')].find((c) => ordersOf(c.id).every((o) => deletable.has(String(o.id))));
  const deleted = String(customer?.id);
  for (const order of ordersOf(customer?.id))
    expect((await client.delete(`/orders/${order.id}.json`)).status).toBe(200);
  expect((await client.delete(`/customers/${deleted}.json`)).status).toBe(200);
  snapshot = { location, manifest, updated, deleted };
});

afterAll(async () => {
  await shop?.close();
  await rm(work, { recursive: true, force: true });
});

function verifyLive(location: string, ...args: string[]) {
  return runCli(['verify', location, '--live', '--shop', shop.url, ...args], { env: { SHOPSNAP_TOKEN: TOKEN } });
}

interface LiveReport {
  resources: Record<string, Record<'records' | 'sampled' | 'equal' | 'changed' | 'gone' | 'differs', number>>;
  findings: Array<{ resource: string; id: string; outcome: string; reason: string; fields?: unknown[] }>;
  passed: boolean;
}

describe('shopsnap verify --live against the simulated shop', () => {
  it('compares every record with what the shop serves now: equal, changed since, or gone', async () => {
    const result = await verifyLive(snapshot.location, '--sample', '1000', '--json');
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout) as LiveReport;
    expect(report.passed).toBe(true);
    expect(report.findings).toEqual([]);
    for (const resource of ['products', 'customers', 'orders'] as ResourceName[]) {
      const counts = report.resources[resource];
      expect(counts?.sampled).toBe(snapshot.manifest.resources[resource]?.exported);
      expect(counts?.records).toBe(counts?.sampled);
      expect((counts?.equal ?? 0) + (counts?.changed ?? 0) + (counts?.gone ?? 0)).toBe(counts?.sampled);
    }
    expect(report.resources.products?.changed).toBeGreaterThanOrEqual(1);
    expect(report.resources.customers?.gone).toBeGreaterThanOrEqual(1);
  });

  it('fetches only the sample, one request per record, and prints counts per outcome', async () => {
    const before = shop.stats().requests;
    const result = await verifyLive(snapshot.location, '--sample', '5');
    expect(result.code, result.stderr).toBe(0);
    expect(shop.stats().requests - before).toBe(15);
    const lines = result.stdout.trimEnd().split('\n');
    for (const [i, resource] of ['products', 'customers', 'orders'].entries()) {
      const total = snapshot.manifest.resources[resource as ResourceName]?.exported;
      expect(lines[i]).toMatch(
        new RegExp(`^${resource} +5 of ${total} sampled: \\d equal, \\d changed since, \\d gone, 0 differs$`),
      );
    }
    expect(lastLine(result.stdout)).toBe(`OK ${snapshot.location} matches ${shop.url}`);
  });

  it('catches a record the snapshot holds otherwise than the shop serves it under the same updated_at (exit 4)', async () => {
    const damaged = await copySnapshot('damaged');
    const { id, text } = await unchangedRecord(damaged, 'orders');
    const record = parseJson(text) as Record<string, unknown>;
    await rewriteRecord(damaged, 'orders', id, stringifyJson({ ...record, note: 'not what the shop served' }));
    // The files are consistent with their manifest: only the shop can tell.
    expect((await runCli(['verify', damaged])).code).toBe(0);

    const result = await verifyLive(damaged, '--sample', '1000');
    expect(result.code, result.stderr).toBe(4);
    expect(result.stdout).toContain(
      `differs    orders ${id}: the shop serves other content under the same updated_at: $.note\n`,
    );
    expect(lastLine(result.stdout)).toBe(`FAILED ${damaged}: 1 record not as the shop serves it`);
  });

  it('takes a record serialised otherwise (keys reordered, escapes, number spelling) for equal', async () => {
    const reordered = await copySnapshot('reordered');
    const { id, text } = await unchangedRecord(reordered, 'customers');
    const record = parseJson(text) as Record<string, unknown>;
    const keys = Object.keys(record).reverse();
    const respelled = `{${keys.map((key) => `${JSON.stringify(key)}:${stringifyJson(record[key])}`).join(',')}}`
      .replaceAll('/', '\\/')
      .replaceAll(':0,', ':0.0,');
    expect(respelled).not.toBe(text);
    await rewriteRecord(reordered, 'customers', id, respelled);
    const result = await verifyLive(reordered, '--sample', '1000', '--json');
    expect(result.code, result.stderr).toBe(0);
    expect((JSON.parse(result.stdout) as LiveReport).findings).toEqual([]);
  });

  it('refuses another shop, a missing token, a whole destination, and a snapshot without a record index', async () => {
    const other = await runCli(['verify', snapshot.location, '--live', '--shop', 'other-shop'], {
      env: { SHOPSNAP_TOKEN: TOKEN },
    });
    expect(other.code).toBe(2);
    expect(failureLine(other.stderr)).toMatch(/other-shop\.myshopify\.com, but the snapshot is of 127\.0\.0\.1-\d+$/);
    const noToken = await runCli(['verify', snapshot.location, '--live', '--shop', shop.url]);
    expect(noToken.code).toBe(2);
    const destination = await verifyLive(join(work, 'out'));
    expect(destination.code).toBe(2);
    expect(failureLine(destination.stderr)).toMatch(/--live checks one shop: name a snapshot or a shop folder, not /);
    const unindexed = await copySnapshot('unindexed');
    const manifest = await readManifest(unindexed);
    await writeManifest(unindexed, { ...manifest, files: manifest.files.filter((file) => file.format !== 'index') });
    const old = await verifyLive(unindexed);
    expect(old.code).toBe(1);
    expect(failureLine(old.stderr)).toMatch(/has no record index of products/);
  });
});

async function copySnapshot(name: string): Promise<string> {
  const target = join(work, name, snapshot.manifest.shop, snapshot.manifest.snapshot_id);
  await cp(snapshot.location, target, { recursive: true });
  return target;
}

async function readManifest(location: string): Promise<Manifest> {
  return JSON.parse(await readFile(join(location, 'manifest.json'), 'utf8')) as Manifest;
}

async function writeManifest(location: string, manifest: Manifest): Promise<void> {
  await writeFile(join(location, 'manifest.json'), serializeManifest(manifest));
}

/**
 * A record of the resource's first raw part that the shop still serves exactly as the snapshot holds it (churn during
 * the backup may have changed others since), and its id (exact).
 */
async function unchangedRecord(location: string, resource: ResourceName): Promise<{ id: string; text: string }> {
  const client = clientFor(shop);
  for (const line of await gunzipLines(join(location, 'raw', resource, 'part-00000.jsonl.gz'))) {
    const id = /^\{"id":(\d+)/.exec(line)?.[1] as string;
    const served = await client.get(`/${resource}/${id}.json`);
    if (served.text === `{"${SINGULAR[resource]}":${line}}`) return { id, text: line };
  }
  throw new Error(`no ${resource} record of ${location} is served unchanged`);
}
