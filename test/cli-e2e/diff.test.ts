import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type JsonObject, parseJson, stringifyJson } from '../../src/shopify/json.js';
import { type RunningShop, startShop } from '../../src/simulator/index.js';
import { failureLine, runCli } from '../helpers/cli.js';
import { gunzipLines, readRecordIndex, rewriteRecord } from '../helpers/snapshot-files.js';
import { clientFor, deletableOrders } from '../simulator/shop-client.js';

const TOKEN = 'shpat_diff_e2e_4a7c';
const SAFE = BigInt(Number.MAX_SAFE_INTEGER);

let shop: RunningShop;
let work: string;
/** The shop's folder in `out`, and its two nights (default formats, raw archive included). */
let shopFolder: string;
let nights: [string, string];
/** The same two nights without a raw archive (`--formats ndjson`). */
let bare: [string, string];
/** What the test did to the shop between the two nights, by exact id. */
const did = { updated: '', deleted: '', deletedOrders: [] as string[], created: '', order: '' };

async function backup(out: string, ...flags: string[]): Promise<string> {
  const result = await runCli(['backup', '--shop', shop.url, '--out', join(work, out), '--json', ...flags], {
    env: { SHOPSNAP_TOKEN: TOKEN },
  });
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout).location;
}

beforeAll(async () => {
  // 150 orders of about 10 KB: several 256 KiB gzip members in the raw part of orders.
  shop = await startShop({ seed: 31, products: 8, customers: 120, orders: 150, token: TOKEN, bigIdShare: 0.5 });
  work = await mkdtemp(join(tmpdir(), 'shopsnap-diff-'));
  const first = await backup('out');
  const firstBare = await backup('bare', '--formats', 'ndjson');
  const api = clientFor(shop);
  const isBig = (record: JsonObject) => BigInt(record.id as bigint) > SAFE;
  // Shopify deletes a customer only without orders: one whose orders can all be deleted goes with them.
  const deletable = new Set(deletableOrders(shop).map((order) => String(order.id)));
  const ordersOf = (id: unknown) =>
    [...shop.records('orders')].filter((order) => (order.customer as { id?: unknown } | null)?.id === id);
  const customers = [...shop.records('customers')].filter(isBig);
  const gone = customers.find((customer) => ordersOf(customer.id).every((order) => deletable.has(String(order.id))));
  did.deleted = String(gone?.id);
  did.deletedOrders = ordersOf(gone?.id).map((order) => String(order.id));
  did.updated = String(customers.find((customer) => customer !== gone)?.id);
  expect(did.deletedOrders.length).toBeGreaterThan(0);
  for (const id of did.deletedOrders) expect((await api.delete(`/orders/${id}.json`)).status).toBe(200);
  const note = { customer: { id: did.updated, note: 'called back', tags: 'vip, "quoted"' } };
  expect((await api.put(`/customers/${did.updated}.json`, note)).status).toBe(200);
  expect((await api.delete(`/customers/${did.deleted}.json`)).status).toBe(200);
  const created = await api.post('/customers.json', { customer: { email: 'diff-new@example.com' } });
  expect(created.status).toBe(201);
  did.created = String((created.json as { customer: { id: bigint | number } }).customer.id);
  // An order in the last gzip member of its part: reading it must not need the members before it.
  const orders = await readRecordIndex(first, 'orders');
  const lastMember = Math.max(...orders.map((row) => row.gzip_offset as number));
  expect(lastMember).toBeGreaterThan(0);
  did.order = (
    orders.find((row) => row.gzip_offset === lastMember && !did.deletedOrders.includes(row.id)) as { id: string }
  ).id;
  const order = { order: { id: did.order, note: 'leave at the door' } };
  expect((await api.put(`/orders/${did.order}.json`, order)).status).toBe(200);
  nights = [first, await backup('out')];
  bare = [firstBare, await backup('bare', '--formats', 'ndjson')];
  shopFolder = join(first, '..');
  expect(join(nights[1], '..')).toBe(shopFolder);
});

afterAll(async () => {
  await shop?.close();
  await rm(work, { recursive: true, force: true });
});

interface Detail {
  resource: string;
  id: string;
  change: string;
  fields?: { path: string; before?: unknown; after?: unknown }[];
}

/** What the test did between the two nights, as --details lists it: by resource, then by id. */
function expectedChanges(): { resource: string; id: string; change: string }[] {
  const byId = (a: string, b: string) => (BigInt(a) < BigInt(b) ? -1 : 1);
  const customers = [did.updated, did.deleted, did.created].sort(byId);
  const orders = [did.order, ...did.deletedOrders].sort(byId);
  return [
    ...customers.map((id) => ({
      resource: 'customers',
      id,
      change: id === did.updated ? 'changed' : id === did.deleted ? 'removed' : 'added',
    })),
    ...orders.map((id) => ({ resource: 'orders', id, change: id === did.order ? 'changed' : 'removed' })),
  ];
}

async function detailsOf(...locations: string[]): Promise<Detail[]> {
  const file = join(work, `details-${Math.random().toString(36).slice(2)}.ndjson`);
  const result = await runCli(['diff', ...locations, '--details', file]);
  expect(result.code, result.stderr).toBe(0);
  return (await readFile(file, 'utf8'))
    .trimEnd()
    .split('\n')
    .map((line) => parseJson(line) as unknown as Detail);
}

describe('shopsnap diff (built binary)', () => {
  it('compares a shop folder’s last two complete snapshots: --json counts per resource', async () => {
    const result = await runCli(['diff', shopFolder, '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      resources: {
        products: { added: 0, removed: 0, changed: 0, unchanged: 8 },
        customers: { added: 1, removed: 1, changed: 1, unchanged: 118 },
        orders: { added: 0, removed: did.deletedOrders.length, changed: 1, unchanged: 149 - did.deletedOrders.length },
      },
    });
  });

  it('prints a table per resource by default', async () => {
    const result = await runCli(['diff', ...nights]);
    expect(result.code, result.stderr).toBe(0);
    const [idBefore, idAfter] = nights.map((night) => night.split('/').at(-1));
    expect(result.stdout).toBe(
      [
        `${shopFolder}: ${idBefore} → ${idAfter}`,
        'resource   added  removed  changed  unchanged',
        'products       0        0        0          8',
        'customers      1        1        1        118',
        `orders         0  ${String(did.deletedOrders.length).padStart(7)}        1        ${149 - did.deletedOrders.length}`,
        '',
      ].join('\n'),
    );
  });

  it('--details names each record that differs, ids exact beyond 2^53, with a changed one’s fields', async () => {
    const details = await detailsOf(...nights);
    expect(details.map(({ resource, id, change }) => ({ resource, id, change }))).toEqual(expectedChanges());
    expect(BigInt(did.updated) > SAFE && BigInt(did.deleted) > SAFE).toBe(true);
    const byId = new Map(details.map((detail) => [detail.id, detail]));
    expect(byId.get(did.deleted)).toEqual({ resource: 'customers', id: did.deleted, change: 'removed' });
    expect(byId.get(did.created)).toEqual({ resource: 'customers', id: did.created, change: 'added' });
    const customer = byId.get(did.updated)?.fields ?? [];
    // The simulated shop also derives email_marketing_consent afresh on every update of a customer.
    const derived = (path: string) => path.startsWith('$.email_marketing_consent.');
    expect(
      customer
        .map((field) => field.path)
        .filter((path) => !derived(path))
        .sort(),
    ).toEqual(['$.note', '$.tags', '$.updated_at']);
    expect(customer.find((field) => field.path === '$.note')).toEqual({
      path: '$.note',
      before: null,
      after: 'called back',
    });
    expect(customer.find((field) => field.path === '$.tags')?.after).toBe('"quoted", vip');
    const order = byId.get(did.order)?.fields ?? [];
    expect(order.map((field) => field.path).sort()).toEqual(['$.note', '$.updated_at']);
    expect(order.find((field) => field.path === '$.note')?.after).toBe('leave at the door');
    expect((await readdir(work)).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  it('decompresses only the gzip members holding changed records', async () => {
    // Copies whose raw orders part is garbage wherever no changed record lies: a diff that read more would fail.
    const copies = await Promise.all(
      nights.map(async (night, i) => {
        const copy = join(work, 'members', `${i}`, ...night.split('/').slice(-2));
        await cp(night, copy, { recursive: true });
        const rows = await readRecordIndex(copy, 'orders');
        const keep = rows.find((row) => row.id === did.order)?.gzip_offset as number;
        const path = join(copy, 'raw', 'orders', 'part-00000.jsonl.gz');
        const bytes = await readFile(path);
        const offsets = [...new Set(rows.map((row) => row.gzip_offset as number))].sort((a, b) => a - b);
        offsets.forEach((offset, k) => {
          if (offset !== keep) bytes.fill(0xff, offset, offsets[k + 1] ?? bytes.length);
        });
        await writeFile(path, bytes);
        return copy;
      }),
    );
    const details = await detailsOf(...copies);
    expect(
      details
        .find((detail) => detail.id === did.order)
        ?.fields?.map((field) => field.path)
        .sort(),
    ).toEqual(['$.note', '$.updated_at']);
  });

  it('counts from the indexes alone; with --details a line that is not what its index row says fails (exit 1)', async () => {
    const damaged = join(work, 'damaged', ...nights[1].split('/').slice(-2));
    await cp(nights[1], damaged, { recursive: true });
    const [row] = (await readRecordIndex(damaged, 'orders')).filter((r) => r.id === did.order);
    await rewriteRecord(damaged, 'orders', did.order, stringifyJson({ id: BigInt(did.order), note: 'forged' }), {
      keepIndexSha256: true,
    });
    const counts = await runCli(['diff', nights[0], damaged, '--json']);
    expect(counts.code, counts.stderr).toBe(0);
    expect(JSON.parse(counts.stdout).resources.orders.changed).toBe(1);
    const details = join(work, 'damaged.ndjson');
    const result = await runCli(['diff', nights[0], damaged, '--details', details]);
    expect(result.code).toBe(1);
    expect(failureLine(result.stderr)).toBe(
      `shopsnap: ${damaged}: line ${row?.line} of raw/orders/part-00000.jsonl.gz is not the record its index row describes (run shopsnap verify)`,
    );
    // Nothing is left of the details file: neither it nor its temp file.
    expect((await readdir(work)).filter((name) => name.includes('damaged.ndjson'))).toEqual([]);
  });

  it('takes a record written otherwise (keys in another order) for changed, with no field changed', async () => {
    const respelled = join(work, 'respelled', ...nights[1].split('/').slice(-2));
    await cp(nights[1], respelled, { recursive: true });
    const [row] = await readRecordIndex(respelled, 'products');
    const record = (await readRecordLine(respelled, 'products', row?.id as string)) as Record<string, unknown>;
    const reordered = `{${Object.keys(record)
      .reverse()
      .map((key) => `${JSON.stringify(key)}:${stringifyJson(record[key])}`)
      .join(',')}}`;
    await rewriteRecord(respelled, 'products', row?.id as string, reordered);
    expect((await runCli(['verify', respelled])).code).toBe(0);
    const details = await detailsOf(nights[1], respelled);
    expect(details).toEqual([{ resource: 'products', id: row?.id, change: 'changed', fields: [] }]);
  });

  it('compares snapshots without a raw archive by their indexes: changed records come without fields', async () => {
    const details = await detailsOf(...bare);
    expect(details.map(({ resource, id, change }) => ({ resource, id, change }))).toEqual(expectedChanges());
    expect(details.every((detail) => detail.fields === undefined)).toBe(true);
  });

  it.each([
    [['diff'], /^shopsnap: missing <before> /],
    [['diff', 'NIGHT_ONE'], /is not a shop folder; name one \(<out>\/<shop>\), or two snapshots$/],
    [['diff', 'SHOP_FOLDER', 'NIGHT_ONE'], /is not a snapshot; name two snapshots, or one shop folder$/],
    [['diff', 'NIGHT_ONE', 'NIGHT_TWO', 'NIGHT_ONE'], /^shopsnap: unexpected argument /],
    [['diff', 'NIGHT_ONE', 'UNFINISHED'], /is no snapshot to compare: it has no manifest\.json: unfinished$/],
    [['diff', 'ONE_NIGHT_SHOP'], /holds 1 complete snapshot\(s\); diff needs two$/],
    [['diff', 'NIGHT_ONE', 'OTHER_SHOP'], /: diff compares two snapshots of one shop$/],
  ])('%j is a usage error, exit 2', async (args, message) => {
    const other = await otherShopSnapshot();
    const unfinished = join(shopFolder, '20990101T000000000Z');
    await mkdir(join(unfinished, 'raw'), { recursive: true });
    await writeFile(join(unfinished, 'raw', 'part-00000.jsonl.gz'), '');
    const named = args.map(
      (arg) =>
        ({
          NIGHT_ONE: nights[0],
          NIGHT_TWO: nights[1],
          SHOP_FOLDER: shopFolder,
          UNFINISHED: unfinished,
          ONE_NIGHT_SHOP: join(other, '..'),
          OTHER_SHOP: other,
        })[arg] ?? arg,
    );
    try {
      const result = await runCli(named);
      expect(result.code, result.stderr).toBe(2);
      expect(failureLine(result.stderr)).toMatch(message);
    } finally {
      await rm(unfinished, { recursive: true, force: true });
    }
  });

  it('a --details file that cannot be written fails naming it (exit 1)', async () => {
    const file = join(work, 'no-such-folder', 'changes.ndjson');
    const result = await runCli(['diff', ...nights, '--details', file]);
    expect(result.code).toBe(1);
    expect(failureLine(result.stderr)).toBe(`shopsnap: cannot write ${file}: no such file or directory (ENOENT)`);
  });
});

/** A record's raw line in a snapshot, parsed (exact ids). */
async function readRecordLine(location: string, resource: string, id: string) {
  const row = (await readRecordIndex(location, resource)).find((candidate) => candidate.id === id);
  const lines = await gunzipLines(join(location, 'raw', resource, `part-0000${row?.part}.jsonl.gz`));
  return parseJson(lines[(row?.line as number) - 1] as string);
}

let otherShop: Promise<string> | undefined;

/** One snapshot of another shop, in a destination of its own. */
function otherShopSnapshot(): Promise<string> {
  otherShop ??= (async () => {
    const other = await startShop({ seed: 5, products: 1, customers: 1, orders: 1, token: TOKEN });
    try {
      const result = await runCli(
        ['backup', '--shop', other.url, '--out', join(work, 'other'), '--formats', 'ndjson', '--json'],
        { env: { SHOPSNAP_TOKEN: TOKEN } },
      );
      expect(result.code, result.stderr).toBe(0);
      return JSON.parse(result.stdout).location as string;
    } finally {
      await other.close();
    }
  })();
  return otherShop;
}
