import { createHash } from 'node:crypto';
import { cp, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_PREFIX } from '../../src/shopify/resources.js';
import { type RunningShop, startShop } from '../../src/simulator/index.js';
import { S3Storage } from '../../src/storage/s3-storage.js';
import { type CliResult, failureLine, lastLine, runCli } from '../helpers/cli.js';
import { BUCKET, S3RVER_CLI_ENV, s3rverCliFlags, s3rverOptions } from '../helpers/s3-fixture.js';
import { type S3rverProcess, startS3rver } from '../helpers/s3rver-process.js';
import { filesUnder } from '../helpers/snapshot-files.js';
import { deletableOrders } from '../simulator/shop-client.js';

const TOKEN = 'shpat_destinations_8e02';

/**
 * A destination as a user's nights leave it: two complete snapshots of a shop, one kept as incomplete (most orders
 * gone: a suspicious shrink, exit 8), and a run killed before its manifest, its parts committed. Ids oldest first.
 */
interface Destination {
  out: string;
  shop: string;
  complete: [string, string];
  incomplete: string;
  unfinished: string;
  /** CLI flags and environment the destination needs (s3rver's). */
  flags: string[];
  env: Record<string, string>;
  /** The shop backed up, still serving (with most of its orders gone). */
  server: RunningShop;
}

async function fillDestination(out: string, flags: string[], env: Record<string, string>): Promise<Destination> {
  const server = await startShop({ seed: 23, products: 5, customers: 5, orders: 200, token: TOKEN });
  const ids: string[] = [];
  for (const expected of [0, 0, 8]) {
    if (expected === 8) await deleteOrders(server);
    const result = await backup(server, out, flags, env);
    expect(result.code, result.stderr).toBe(expected);
    ids.push(JSON.parse(result.stdout).manifest.snapshot_id);
  }
  const killed = await backup(server, out, flags, { ...env, TEST_SHOPSNAP_CRASH_AT: 'before-manifest' });
  expect(killed.signal, killed.stderr).toBe('SIGKILL');
  const key = new URL(server.url).host.replace(':', '-');
  const destination = { out, shop: key, flags, env, server };
  const unfinished = (await snapshotIdsIn(destination)).filter((id) => !ids.includes(id));
  expect(unfinished).toHaveLength(1);
  const [a, b, incomplete] = ids as [string, string, string];
  return { ...destination, complete: [a, b], incomplete, unfinished: unfinished[0] as string };
}

function backup(server: RunningShop, out: string, flags: string[], env: Record<string, string>): Promise<CliResult> {
  return runCli(['backup', '--shop', server.url, '--out', out, '--resources', 'orders', '--json', ...flags], {
    env: { SHOPSNAP_TOKEN: TOKEN, ...env },
  });
}

/** The snapshot folders of the destination's shop, read without shopsnap. */
async function snapshotIdsIn(destination: Pick<Destination, 'out' | 'shop'>): Promise<string[]> {
  const names = new Set<string>();
  if (!destination.out.startsWith('s3://')) {
    for (const name of await readdir(join(destination.out, destination.shop))) names.add(name);
  } else {
    for await (const object of s3Storage().list(`${destination.shop}/`)) names.add(object.key.split('/')[1] as string);
  }
  return [...names].filter((name) => /^\d{8}T\d{9}Z$/.test(name));
}

/**
 * Deletes every order Shopify lets an app delete (not those paid through an online gateway): 118 of the 200 of seed
 * 23, leaving 82, a suspicious shrink.
 */
async function deleteOrders(shop: RunningShop): Promise<void> {
  const deletable = deletableOrders(shop);
  expect(deletable.length).toBeGreaterThan(shop.count('orders') / 2);
  for (const order of deletable) {
    const response = await fetch(`${shop.url}${API_PREFIX}/orders/${order.id}.json`, {
      method: 'DELETE',
      headers: { 'x-shopify-access-token': TOKEN },
    });
    expect(response.status).toBe(200);
  }
}

function snapshots(destination: Destination, location: string, ...extra: string[]): Promise<CliResult> {
  return runCli(['snapshots', location, ...extra, ...destination.flags], { env: destination.env });
}

/** The objects under a snapshot's folder and their bytes, read without shopsnap's catalog. */
async function storedSize(destination: Destination, id: string): Promise<[number, number]> {
  const sizes: number[] = [];
  if (destination === local) {
    for (const file of await filesUnder(join(destination.out, destination.shop, id)))
      sizes.push((await stat(file)).size);
  } else {
    for await (const object of s3Storage().list(`${destination.shop}/${id}/`)) sizes.push(object.bytes);
  }
  return [sizes.length, sizes.reduce((sum, bytes) => sum + bytes, 0)];
}

function verify(destination: Destination, location: string, ...extra: string[]): Promise<CliResult> {
  return runCli(['verify', location, ...extra, ...destination.flags], { env: destination.env });
}

let work: string;
let s3: S3rverProcess;
let local: Destination;
let bucket: Destination;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'shopsnap-destinations-'));
  s3 = await startS3rver([BUCKET]);
  [local, bucket] = await Promise.all([
    fillDestination(join(work, 'snapshots'), [], {}),
    fillDestination(`s3://${BUCKET}/shopsnap`, s3rverCliFlags(s3.endpoint), S3RVER_CLI_ENV),
  ]);
}, 180_000);

afterAll(async () => {
  await Promise.all([s3?.stop(), local?.server.close(), bucket?.server.close()]);
  await rm(work, { recursive: true, force: true });
});

function s3Storage(): S3Storage {
  return new S3Storage({ bucket: BUCKET, prefix: 'shopsnap', ...s3rverOptions(s3.endpoint) });
}

/** Replaces an object of the destination (a file locally, an object in the bucket), or removes it. */
async function overwrite(destination: Destination, key: string, content: string | undefined): Promise<void> {
  if (destination === local) {
    if (content === undefined) await rm(join(destination.out, key));
    else await writeFile(join(destination.out, key), content);
    return;
  }
  if (content === undefined) return s3Storage().delete(key);
  const body = Buffer.from(content);
  await s3Storage().putBytes(key, body, { sha256: createHash('sha256').update(body).digest('hex') });
}

describe.each([
  ['a local directory', () => local],
  ['s3rver', () => bucket],
])('shopsnap verify on %s', (_, destination) => {
  it('a whole destination: one line per snapshot, incomplete and unfinished ones listed as such, and a total', async () => {
    const d = destination();
    const result = await verify(d, d.out);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    const [a, b] = d.complete;
    expect(lines.map((line) => line.split(/\s+/).slice(0, 2).join(' '))).toEqual([
      `OK ${d.shop}/${a}`,
      `OK ${d.shop}/${b}`,
      `INCOMPLETE ${d.shop}/${d.incomplete}`,
      `UNFINISHED ${d.shop}/${d.unfinished}`,
      `4 snapshots`,
    ]);
    expect(lines[2]).toMatch(
      /files checked, 0 missing, 0 extra, 0 differing; the manifest says incomplete \(orders: suspicious shrink \(200 → 82 records\)\)$/,
    );
    expect(lines[3]).toMatch(/no manifest\.json \(\d+ files of a run that has not finished/);
    expect(lines[4]).toBe(`4 snapshots under ${d.out}: 2 OK, 1 incomplete, 1 unfinished`);
  });

  it('a shop folder with --json: the per-snapshot reports', async () => {
    const d = destination();
    const result = await verify(d, `${d.out}/${d.shop}/`, '--json');
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report).toMatchObject({
      location: `${d.out}/${d.shop}`,
      passed: true,
      totals: { ok: 2, failed: 0, incomplete: 1, unfinished: 1, damaged: 0 },
    });
    expect(report.snapshots.map((s: { id: string; verdict: string }) => [s.id, s.verdict])).toEqual([
      [d.complete[0], 'ok'],
      [d.complete[1], 'ok'],
      [d.incomplete, 'incomplete'],
      [d.unfinished, 'unfinished'],
    ]);
    expect(report.snapshots[0]).toMatchObject({ state: 'complete', missing: [], extra: [], differing: [] });
    expect(report.snapshots[0].checked).toBeGreaterThan(0);
    expect(report.snapshots[2].reason).toBe('orders: suspicious shrink (200 → 82 records)');
  });

  it("a snapshot's manifest.json names that snapshot", async () => {
    const d = destination();
    const location = `${d.out}/${d.shop}/${d.complete[0]}`;
    const result = await verify(d, `${location}/manifest.json`);
    expect(result.code, result.stderr).toBe(0);
    expect(lastLine(result.stdout)).toBe(`OK ${location}`);
  });

  it('a snapshot whose manifest says incomplete says so and exits as its backup did (8: suspicious shrink)', async () => {
    const d = destination();
    const location = `${d.out}/${d.shop}/${d.incomplete}`;
    const result = await verify(d, location);
    expect(result.code, result.stderr).toBe(8);
    expect(lastLine(result.stdout)).toBe(
      `INCOMPLETE ${location}: the manifest says incomplete (orders: suspicious shrink (200 → 82 records))`,
    );
    const json = JSON.parse((await verify(d, location, '--json')).stdout);
    expect(json).toMatchObject({ state: 'incomplete', verdict: 'incomplete', passed: false, missing: [] });
  });

  it('an unfinished snapshot is no snapshot: exit 4, saying why', async () => {
    const d = destination();
    const location = `${d.out}/${d.shop}/${d.unfinished}`;
    const result = await verify(d, location);
    expect(result.code).toBe(4);
    expect(failureLine(result.stderr)).toMatch(`shopsnap: no manifest.json in ${location}: not a snapshot (`);
  });

  it('a folder that holds no snapshot says so and exits 4', async () => {
    const d = destination();
    const result = await verify(d, `${d.out}/no-such-shop`);
    expect(result.code).toBe(4);
    expect(result.stdout).toBe('');
    expect(failureLine(result.stderr)).toBe(`shopsnap: no snapshot under ${d.out}/no-such-shop`);
  });

  it('snapshots: one line per snapshot (status, records, size, duration, resumed, changes) and a total', async () => {
    const d = destination();
    const result = await snapshots(d, d.out);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const [header, ...rows] = result.stdout.trimEnd().split('\n');
    expect(header).toMatch(/^shop +id +status +products +customers +orders +size +duration +resumed +changes$/);
    const total = rows.pop();
    const cells = rows.map((row) => row.trim().split(/ {2,}/));
    const [a, b] = d.complete;
    const size = expect.stringMatching(/^\d+(\.\d)? (KiB|MiB)$/);
    const seconds = expect.stringMatching(/^\d+ s$/);
    expect(cells).toEqual([
      [d.shop, a, 'complete', '-', '-', '200', size, seconds, '-', '-'],
      // b changed nothing since a; the incomplete one (a suspicious shrink) lost 118 orders since b.
      [d.shop, b, 'complete', '-', '-', '200', size, seconds, '-', 'none'],
      [d.shop, d.incomplete, 'incomplete', '-', '-', '82', size, seconds, '-', 'orders +0 -118 ~0'],
      [d.shop, d.unfinished, 'unfinished', '-', '-', '-', size, '-', '-', '-'],
    ]);
    expect(total).toMatch(
      /^4 snapshots of 1 shop: 2 complete, 1 incomplete, 1 unfinished; \d+(\.\d)? (KiB|MiB) in \d+ files$/,
    );
  });

  it('snapshots --json: an array of objects, sizes and files as stored', async () => {
    const d = destination();
    const result = await snapshots(d, d.out, '--json');
    expect(result.code, result.stderr).toBe(0);
    const listed = JSON.parse(result.stdout);
    expect(listed.map((s: { id: string; status: string }) => [s.id, s.status])).toEqual([
      [d.complete[0], 'complete'],
      [d.complete[1], 'complete'],
      [d.incomplete, 'incomplete'],
      [d.unfinished, 'unfinished'],
    ]);
    for (const snapshot of listed) {
      expect([snapshot.files, snapshot.bytes]).toEqual(await storedSize(d, snapshot.id));
    }
    const manifest = JSON.parse(await readManifest(d, d.complete[0]));
    expect(listed[0]).toEqual({
      shop: d.shop,
      id: d.complete[0],
      status: 'complete',
      records: { orders: 200 },
      files: manifest.files.length + 1,
      bytes: listed[0].bytes,
      started_at: manifest.started_at,
      finished_at: manifest.finished_at,
      duration_s: (Date.parse(manifest.finished_at) - Date.parse(manifest.started_at)) / 1000,
      resumed: null,
      changes: null,
    });
    expect(listed[2].records).toEqual({ orders: 82 });
    expect(listed[3]).toMatchObject({ records: null, duration_s: null, started_at: null });
  });

  it('snapshots --shop takes a shop address or folder name; another shop has none', async () => {
    const d = destination();
    for (const shop of [d.server.url, d.shop]) {
      const result = await snapshots(d, d.out, '--shop', shop, '--json');
      expect(JSON.parse(result.stdout)).toHaveLength(4);
    }
    const none = await snapshots(d, d.out, '--shop', 'other-shop');
    expect(none.code, none.stderr).toBe(0);
    expect(none.stdout).toBe(`no snapshots of other-shop.myshopify.com under ${d.out}\n`);
  });

  // These damage the destination: they run last.
  it('a deleted manifest is damage: exit 4, not a destination failure', async () => {
    const d = destination();
    const [a] = d.complete;
    const original = await readManifest(d, a);
    await overwrite(d, `${d.shop}/${a}/manifest.json`, undefined);
    const result = await verify(d, `${d.out}/${d.shop}/${a}`);
    expect(result.code).toBe(4);
    expect(failureLine(result.stderr)).toMatch(`no manifest.json in ${d.out}/${d.shop}/${a}: not a snapshot`);
    await overwrite(d, `${d.shop}/${a}/manifest.json`, original);
  });

  it('a truncated manifest is damage: exit 4 with the reason, alone and in a listing', async () => {
    const d = destination();
    const [, b] = d.complete;
    const original = await readManifest(d, b);
    await overwrite(d, `${d.shop}/${b}/manifest.json`, original.slice(0, 100));
    const one = await verify(d, `${d.out}/${d.shop}/${b}`);
    expect(one.code).toBe(4);
    expect(failureLine(one.stderr)).toMatch(/manifest\.json is not valid JSON; the snapshot cannot be verified$/);
    const all = await verify(d, d.out);
    expect(all.code).toBe(4);
    expect(all.stdout).toMatch(new RegExp(`^DAMAGED {5}${d.shop}/${b} .*manifest\\.json is not valid JSON$`, 'm'));
    expect(lastLine(all.stdout)).toBe(`4 snapshots under ${d.out}: 1 OK, 1 incomplete, 1 unfinished, 1 damaged`);
    const listed = await snapshots(d, d.out);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(new RegExp(`^${d.shop} +${b} +damaged +- +- +- `, 'm'));
    expect(listed.stdout).toMatch(new RegExp(`^damaged ${d.shop}/${b}: .*manifest\\.json is not valid JSON$`, 'm'));
    await overwrite(d, `${d.shop}/${b}/manifest.json`, original);
  });
});

async function readManifest(destination: Destination, id: string): Promise<string> {
  if (destination === local) return readFile(join(destination.out, destination.shop, id, 'manifest.json'), 'utf8');
  const chunks: Buffer[] = [];
  for await (const chunk of await s3Storage().get(`${destination.shop}/${id}/manifest.json`)) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

describe('shopsnap snapshots of a local destination', () => {
  it('a resumed snapshot says so, and the changes a manifest records are shown', async () => {
    const copy = join(work, 'resumed');
    await cp(local.out, copy, { recursive: true });
    const resumed = await backup(local.server, copy, [], {});
    expect(resumed.code, resumed.stderr).toBe(8);
    const { manifest } = JSON.parse(resumed.stdout);
    expect(manifest).toMatchObject({ snapshot_id: local.unfinished, resumed: { attempts: 1 } });
    // A manifest that records what changed since the previous complete snapshot (shopsnap versions that write them).
    const [a, b] = local.complete;
    const changes = { since: a, resources: { orders: { added: 0, removed: 150, changed: 3 } } };
    const path = join(copy, local.shop, b, 'manifest.json');
    await writeFile(path, JSON.stringify({ ...JSON.parse(await readFile(path, 'utf8')), changes }));

    const listed = JSON.parse((await runCli(['snapshots', copy, '--json'])).stdout);
    const shrunk = { since: b, resources: { orders: { added: 0, removed: 118, changed: 0 } } };
    expect(listed.map((s: { changes: unknown; resumed: unknown }) => [s.changes, s.resumed])).toEqual([
      [null, null],
      [changes, null],
      [shrunk, null],
      [shrunk, manifest.resumed],
    ]);
    const text = await runCli(['snapshots', copy]);
    const rows = text.stdout.split('\n').map((row) => row.trim().split(/ {2,}/));
    expect(rows.find((row) => row[1] === b)?.slice(-2)).toEqual(['-', 'orders +0 -150 ~3']);
    expect(rows.find((row) => row[1] === local.unfinished)?.slice(-2)).toEqual([
      'yes, 1 earlier run',
      'orders +0 -118 ~0',
    ]);
    expect(lastLine(text.stdout)).toMatch(/^4 snapshots of 1 shop: 2 complete, 2 incomplete; /);
  });
});

describe('shopsnap verify on a damaged local destination', () => {
  it('a file that differs fails its snapshot (4), named under it', async () => {
    const copy = join(work, 'flipped');
    await cp(local.out, copy, { recursive: true });
    const [a] = local.complete;
    const manifest = JSON.parse(await readFile(join(copy, local.shop, a, 'manifest.json'), 'utf8'));
    const target = manifest.files.find((file: { format: string }) => file.format === 'raw').path;
    const bytes = await readFile(join(copy, local.shop, a, target));
    const at = bytes.length >> 1;
    bytes[at] = (bytes[at] as number) ^ 0xff;
    await writeFile(join(copy, local.shop, a, target), bytes);
    const result = await runCli(['verify', copy]);
    expect(result.code).toBe(4);
    expect(result.stdout).toMatch(
      new RegExp(`^FAILED {6}${local.shop}/${a} .* 1 differing\\n {2}differs {3}${target}: sha256 `, 'm'),
    );
    expect(lastLine(result.stdout)).toBe(`4 snapshots under ${copy}: 1 OK, 1 failed, 1 incomplete, 1 unfinished`);
  });
});
