import { existsSync } from 'node:fs';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type JsonObject, parseJson, stringifyJson } from '../../src/shopify/json.js';
import { type RunningShop, type ShopOptions, startShop } from '../../src/simulator/index.js';
import { failureLine, lastLine, runCli } from '../helpers/cli.js';
import { backupShop, differencesByNaturalKey, naturalKey, snapshotRecords } from '../helpers/restore-compare.js';
import { BUCKET, S3RVER_CLI_ENV, s3rverCliFlags } from '../helpers/s3-fixture.js';
import { startS3rver } from '../helpers/s3rver-process.js';

/**
 * A small shop with what a restore must carry: ids above 2^53, unicode, nulls, cancelled and closed orders, variants
 * and images linked to them, a guest order with an email and orders with a percentage discount code (the first test
 * checks the snapshot holds each).
 */
const SOURCE: ShopOptions = {
  seed: 23,
  products: 6,
  customers: 8,
  orders: 16,
  bigIdShare: 0.3,
  token: 'shpat_source_7a1',
};
const EMPTY: ShopOptions = { products: 0, customers: 0, orders: 0, token: 'shpat_target_9c4' };

let work: string;
let source: RunningShop;
let snapshot: string;
const shops: RunningShop[] = [];

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'shopsnap-restore-'));
  source = await startShop(SOURCE);
  snapshot = await backup(source, 'source');
});

afterEach(async () => {
  for (const shop of shops.splice(0)) await shop.close();
});

afterAll(async () => {
  await source.close();
  await rm(work, { recursive: true, force: true });
});

async function shop(options: ShopOptions): Promise<RunningShop> {
  const started = await startShop(options);
  shops.push(started);
  return started;
}

/** A backup of the shop into `<work>/<folder>`; the snapshot's location. */
function backup(target: RunningShop, folder: string): Promise<string> {
  return backupShop(target, join(work, folder));
}

function restore(target: RunningShop, args: string[], from = snapshot, env: Record<string, string> = {}) {
  return runCli(['restore', from, '--shop', target.url, '--state', join(work, 'restores'), ...args], {
    env: { SHOPSNAP_TOKEN: target.token, ...env },
  });
}

async function restoreJson(target: RunningShop, args: string[], from = snapshot, env: Record<string, string> = {}) {
  const result = await restore(target, [...args, '--json'], from, env);
  return { ...result, report: result.stdout === '' ? undefined : JSON.parse(lastLine(result.stdout)) };
}

/** A write to the shop's Admin API, as another app (or a person in the admin) makes it: the answer's record. */
function adminApi(target: RunningShop) {
  return async (path: string, method: string, body?: unknown): Promise<JsonObject> => {
    const response = await fetch(`${target.url}/admin/api/2022-01/${path}`, {
      method,
      headers: { 'x-shopify-access-token': target.token, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: stringifyJson(body) }),
    });
    expect(response.status, `${method} ${path}`).toBeLessThan(300);
    return parseJson(await response.text()) as JsonObject;
  };
}

/** The target backed up and compared with the source snapshot by natural key: the problems found. */
async function comparedWithSource(target: RunningShop, folder: string, from = snapshot): Promise<string[]> {
  return differencesByNaturalKey(await snapshotRecords(from), await snapshotRecords(await backup(target, folder)));
}

describe('shopsnap restore, migrate', () => {
  it('--plan shows what it would do and writes nothing: no request writes, no state folder', async () => {
    const target = await shop(EMPTY);
    const result = await restore(target, ['--plan']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^products\s+6\s+0\s+0\s+0\s+0/m);
    expect(result.stdout).toMatch(/^customers\s+8\s/m);
    expect(result.stdout).toMatch(/^orders\s+16\s.*cancel 1/m);
    expect(result.stdout).toContain('no customer is contacted');
    expect(result.stdout).toMatch(/cannot be restored:\n {2}products: .*inventory_quantity/);
    expect(target.stats().writes).toBe(0);
    expect(target.count('orders')).toBe(0);
    expect(existsSync(join(work, 'restores'))).toBe(false);
  });

  it('without --yes and without a terminal to ask on, refuses (exit 2) before any request', async () => {
    const target = await shop(EMPTY);
    const result = await restore(target, []);
    expect(result.code).toBe(2);
    expect(failureLine(result.stderr)).toMatch(/pass --yes to apply without a terminal/);
    expect(target.stats().requests).toBe(0);
  });

  it('into an empty shop: every record equal by natural key, references mapped, states kept, nobody contacted; again, it plans nothing', async () => {
    const source = await snapshotRecords(snapshot);
    const guests = source.orders.filter((order) => order.customer === null && order.email !== '');
    const percentage = source.orders.filter((order) =>
      (order.discount_codes as JsonObject[]).some((code) => code.type === 'percentage'),
    );
    expect(guests.length).toBeGreaterThan(0);
    expect(percentage.length).toBeGreaterThan(0);

    const target = await shop(EMPTY);
    const { code, stderr, report } = await restoreJson(target, ['--yes']);
    expect(report.failures).toEqual([]);
    expect(report.verification.differences).toEqual([]);
    expect(code, stderr).toBe(0);
    expect(report.status).toBe('complete');
    expect(report.mode).toBe('migrate');
    expect(report.resources.orders.result).toMatchObject({ created: 16, failed: 0, states: { cancel: 1 } });
    expect(report.resources.products.count_after).toBe(6);
    // A guest order's email follows its create: order create would have made a customer of it.
    expect(report.resources.customers).toMatchObject({ count_after: 8, count_expected: 8 });
    expect(report.verification.customerOrders.missing).toEqual([]);
    // Every write the plan counted, and no other: the shop saw as many.
    expect(report.requests.writes).toBe(report.estimate.writes);
    expect(target.stats().writes).toBe(report.estimate.writes);

    const copy = await snapshotRecords(await backup(target, 'migrated'));
    expect(differencesByNaturalKey(source, copy)).toEqual([]);
    const copyOf = (order: JsonObject) => copy.orders.find((other) => other.name === order.name) as JsonObject;
    for (const order of guests) expect(copyOf(order)).toMatchObject({ customer: null, email: order.email });
    for (const order of percentage) {
      expect(copyOf(order)).toMatchObject({
        total_price: order.total_price,
        total_discounts: order.total_discounts,
        discount_codes: order.discount_codes,
      });
    }
    const effects = target.stats().sideEffects;
    expect(effects.emails).toEqual({
      orderReceipts: 0,
      fulfillmentReceipts: 0,
      cancellations: 0,
      invites: 0,
      welcomes: 0,
    });
    expect(effects.inventory).toEqual({ decremented: 0, restocked: 0 });
    expect(effects.refunds).toBe(0);

    const writes = target.stats().writes;
    const again = await restoreJson(target, ['--plan']);
    expect(again.code).toBe(0);
    expect(again.report.rows.filter((row: { class: string }) => row.class !== 'unchanged')).toEqual([]);
    const rerun = await restore(target, ['--yes']);
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(lastLine(rerun.stdout)).toMatch(/restores\/.*\/report-\d{8}T\d{6}Z\.json$/);
    expect(target.stats().writes).toBe(writes);
  });

  it('into a shop that holds the same records: matched ones are left alone, unless --update-existing', async () => {
    const target = await shop({ ...SOURCE, token: 'shpat_copy_3e8' });
    const product = [...target.records('products')][1];
    const titleNow = () => [...target.records('products')].find((p) => p.id === product?.id)?.title;
    await adminApi(target)(`products/${product?.id}.json`, 'PUT', {
      product: { id: product?.id, title: 'Renamed in the target' },
    });

    const plan = await restoreJson(target, ['--plan']);
    expect(plan.report.mode).toBe('migrate');
    const classes = (resource: string) =>
      plan.report.rows
        .filter((row: { resource: string }) => row.resource === resource)
        .map((row: { class: string }) => row.class);
    expect(classes('products').sort()).toEqual([
      'skip',
      'unchanged',
      'unchanged',
      'unchanged',
      'unchanged',
      'unchanged',
    ]);
    expect(new Set(classes('customers'))).toEqual(new Set(['unchanged']));
    expect(new Set(classes('orders'))).toEqual(new Set(['unchanged']));

    const untouched = await restoreJson(target, ['--yes']);
    expect(untouched.code, untouched.stderr).toBe(0);
    expect(target.stats().writes).toBe(1);
    expect(titleNow()).toBe('Renamed in the target');

    const updated = await restoreJson(target, ['--yes', '--update-existing']);
    expect(updated.code, updated.stderr).toBe(0);
    expect(updated.report.resources.products.result.updated).toBe(1);
    expect(await comparedWithSource(target, 'matched')).toEqual([]);
  });

  it('--only an order: that order, with its customer and the products its line items name', async () => {
    const target = await shop(EMPTY);
    const order = (await snapshotRecords(snapshot)).orders.find((o) => o.name === '#1006');
    const { code, stderr, report } = await restoreJson(target, ['--yes', '--only', `orders:${order?.id}`]);
    expect(code, stderr).toBe(0);
    expect(target.count('orders')).toBe(1);
    expect(target.count('customers')).toBe(1);
    const lines = order?.line_items as Array<{ product_id: unknown }>;
    expect(target.count('products')).toBe(new Set(lines.map((line) => String(line.product_id))).size);
    expect(report.verification.differences).toEqual([]);
    expect([...target.records('orders')].map((o) => naturalKey('orders', o))).toEqual(['#1006']);
  });

  it("waits out a development store's order limit, learned from its first refusals, instead of probing it", async () => {
    const target = await shop({ ...EMPTY, orderCreateThrottle: { orders: 5, windowMs: 1500 } });
    const result = await restore(target, ['--yes', '--resources', 'orders'], snapshot, {
      TEST_SHOPSNAP_ORDER_LIMIT_WINDOW_MS: '1500',
    });
    expect(result.stderr).toMatch(
      /orders: the shop allows 5 new orders per 2 s \(a development or trial store\); waiting/,
    );
    expect(result.code, result.stderr).toBe(0);
    expect(target.count('orders')).toBe(16);
    // Refused only while in flight when the limit first struck (at most the writes in flight), never again after.
    const refused = target.stats().writeLimits.orderCreate;
    expect(refused).toBeGreaterThan(0);
    expect(refused).toBeLessThanOrEqual(11);
  });
});

describe('shopsnap restore, the snapshot', () => {
  it('reads a snapshot in S3: a shop folder there means its newest complete snapshot', async () => {
    const s3 = await startS3rver([BUCKET]);
    try {
      const store = async () => {
        const stored = await runCli(
          ['backup', '--shop', source.url, '--out', `s3://${BUCKET}/restore`, '--json', ...s3rverCliFlags(s3.endpoint)],
          { env: { SHOPSNAP_TOKEN: source.token, ...S3RVER_CLI_ENV } },
        );
        expect(stored.code, stored.stderr).toBe(0);
        return String(JSON.parse(stored.stdout).location);
      };
      await store();
      const newest = await store();
      const folder = newest.replace(/\/[^/]+$/, '');
      const target = await shop(EMPTY);
      const { code, stderr, report } = await restoreJson(target, ['--yes'], folder, {
        ...S3RVER_CLI_ENV,
        SHOPSNAP_S3_ENDPOINT: s3.endpoint,
        SHOPSNAP_S3_FORCE_PATH_STYLE: 'true',
      });
      expect(code, stderr).toBe(0);
      expect(report.source.location).toBe(newest);
      expect(await comparedWithSource(target, 'from-s3')).toEqual([]);
    } finally {
      await s3.stop();
    }
  });

  it('refuses a damaged snapshot before writing anything, naming the file', async () => {
    const copy = join(work, 'damaged-copy');
    await cp(join(snapshot, '..', '..'), copy, { recursive: true });
    const location = join(copy, basename(join(snapshot, '..')), basename(snapshot));
    const part = join(location, 'raw', 'orders', 'part-00000.jsonl.gz');
    const bytes = await readFile(part);
    bytes[bytes.length - 9] = (bytes[bytes.length - 9] as number) ^ 0xff;
    await writeFile(part, bytes);
    const target = await shop(EMPTY);
    const result = await restore(target, ['--yes'], location);
    expect(result.code).toBe(1);
    expect(failureLine(result.stderr)).toMatch(/raw\/orders\/part-00000\.jsonl\.gz/);
    expect(target.stats().writes).toBe(0);
  });
});

describe('shopsnap restore, customers', () => {
  it('contacts nobody by default; --activation-urls writes one URL per created customer, --send-invites sends invites', async () => {
    const quiet = await shop(EMPTY);
    const csv = join(work, 'activation.csv');
    const urls = await restoreJson(quiet, ['--yes', '--resources', 'customers', '--activation-urls', csv]);
    expect(urls.code, urls.stderr).toBe(0);
    expect(quiet.stats().sideEffects.emails).toMatchObject({ invites: 0, welcomes: 0 });
    const lines = (await readFile(csv, 'utf8')).trimEnd().split('\n');
    expect(lines[0]).toBe('source_id,target_id,activation_url');
    expect(lines).toHaveLength(1 + 8);
    for (const line of lines.slice(1)) expect(line).toMatch(/^\d+,\d+,https:\/\/.*\/account\/activate\//);
    expect(urls.report.state.activation_urls).toBe(csv);

    const invited = await shop(EMPTY);
    const sent = await restoreJson(invited, ['--yes', '--resources', 'customers', '--send-invites']);
    expect(sent.code, sent.stderr).toBe(0);
    expect(invited.stats().sideEffects.emails).toMatchObject({ invites: 8, welcomes: 0 });
  });
});

describe('shopsnap restore, the variant limit', () => {
  it('stops sending products at the daily variant limit, holds back the orders that need them, and goes on when run again', async () => {
    const windowMs = 2000;
    // 10 of the snapshot's 17 variants a window: the first run stops within it, the rest fits in the next.
    const target = await shop({ ...EMPTY, variantCreateThrottle: { afterVariants: 0, variants: 10, windowMs } });
    const first = await restoreJson(target, ['--yes']);
    expect(first.code, first.stderr).toBe(3);
    expect(first.stderr).toMatch(/products: the shop's daily limit on new variants is reached/);
    const failures = first.report.failures as Array<{ resource: string; message: string }>;
    const products = failures.filter((failure) => failure.resource === 'products');
    expect(products.length).toBeGreaterThan(0);
    for (const failure of products) expect(failure.message).toMatch(/run the same command again later/);
    const held = failures.filter((failure) => failure.resource === 'orders');
    expect(held.length).toBeGreaterThan(0);
    for (const failure of held) expect(failure.message).toMatch(/^waits for product \d+, which could not be restored/);
    // No order was made with a custom line item in place of a product that is only late.
    for (const order of target.records('orders')) {
      for (const line of order.line_items as Array<{ variant_id: unknown }>) expect(line.variant_id).not.toBeNull();
    }
    // Refused only while in flight when the limit struck: nothing is sent after it.
    expect(target.stats().writeLimits.variantCreate).toBeLessThanOrEqual(6);

    await new Promise((resolve) => setTimeout(resolve, windowMs));
    const second = await restoreJson(target, ['--yes']);
    expect(second.report.failures).toEqual([]);
    expect(second.code, second.stderr).toBe(0);
    expect(await comparedWithSource(target, 'after-the-limit')).toEqual([]);
  });
});

describe('shopsnap restore, recover', () => {
  it('re-creates deleted records and rolls back edits in the shop the snapshot was taken of', async () => {
    const damaged = await shop({ ...SOURCE, token: 'shpat_damaged_51b' });
    const api = adminApi(damaged);
    // A product no order names (orders keep their line items' variant ids, which a re-created product changes),
    // with two variants and an image of the second.
    const added = (
      await api('products.json', 'POST', {
        product: {
          title: 'Ünïcode “Lamp” 灯',
          variants: [
            { option1: 'Small', price: '10.00' },
            { option1: 'Large', price: '12.50' },
          ],
          images: [{ src: 'https://cdn.example.com/lamp.jpg' }],
        },
      })
    ).product as JsonObject;
    const large = (added.variants as JsonObject[])[1] as JsonObject;
    const image = (added.images as JsonObject[])[0] as JsonObject;
    await api(`products/${added.id}.json`, 'PUT', {
      product: { id: added.id, images: [{ id: image.id, variant_ids: [large.id] }] },
    });
    const taken = await backup(damaged, 'damaged');

    const second = [...damaged.records('products')].find((p) => p.id !== added.id);
    const order = [...damaged.records('orders')].find((o) => o.gateway === 'manual' && o.cancelled_at === null);
    const customer = [...damaged.records('customers')][0];
    await api(`orders/${order?.id}.json`, 'DELETE');
    await api(`products/${added.id}.json`, 'DELETE');
    await api(`products/${second?.id}.json`, 'PUT', { product: { id: second?.id, title: 'Vandalised', tags: 'x' } });
    await api(`customers/${customer?.id}.json`, 'PUT', { customer: { id: customer?.id, note: 'edited', tags: 'y' } });

    const { code, stderr, report } = await restoreJson(damaged, ['--yes'], taken);
    expect(report.failures).toEqual([]);
    expect(report.verification.differences).toEqual([]);
    expect(code, stderr).toBe(0);
    expect(report.mode).toBe('recover');
    expect(report.resources.products.result).toMatchObject({ created: 1, updated: 1 });
    expect(report.resources.customers.result).toMatchObject({ created: 0, updated: 1 });
    expect(report.resources.orders.result).toMatchObject({ created: 1 });
    expect(await comparedWithSource(damaged, 'recovered', taken)).toEqual([]);
  });

  it('--prune deletes what the snapshot does not have, orders first; a customer with orders refuses, reported', async () => {
    const grown = await shop({ ...SOURCE, token: 'shpat_grown_c07' });
    const taken = await backup(grown, 'grown');
    const api = adminApi(grown);
    const customerWithOrder = async (email: string) => {
      const customer = (await api('customers.json', 'POST', { customer: { email } })).customer as JsonObject;
      await api('orders.json', 'POST', {
        order: { customer: { id: customer.id }, line_items: [{ title: 'Extra', price: '1.00', quantity: 1 }] },
      });
      return customer;
    };
    await api('products.json', 'POST', { product: { title: 'Added after the snapshot' } });
    await api('customers.json', 'POST', { customer: { email: 'added@example.com' } });
    await customerWithOrder('buyer@example.com');

    const plan = await restoreJson(grown, ['--plan', '--prune'], taken);
    expect(plan.report.prune).toHaveLength(4);
    const pruned = await restoreJson(grown, ['--yes', '--prune'], taken);
    expect(pruned.code, pruned.stderr).toBe(0);
    expect(pruned.report.resources.orders.result.deleted).toBe(1);
    expect(pruned.report.resources.customers.result.deleted).toBe(2);
    expect(pruned.report.resources.products.result.deleted).toBe(1);
    expect(await comparedWithSource(grown, 'pruned', taken)).toEqual([]);

    // Customers alone: the new customer's order is not the restore's to delete, so the customer refuses.
    const keeper = await customerWithOrder('keeper@example.com');
    const refused = await restoreJson(grown, ['--yes', '--prune', '--resources', 'customers'], taken);
    expect(refused.code, refused.stderr).toBe(3);
    expect(refused.report.failures).toEqual([
      expect.objectContaining({ resource: 'customers', id: String(keeper.id), step: 'delete', status: 422 }),
    ]);
    expect(grown.count('orders')).toBe((SOURCE.orders as number) + 1);
  });
});
