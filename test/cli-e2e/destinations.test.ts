import { createHash } from 'node:crypto';
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_PREFIX } from '../../src/shopify/resources.js';
import { type RunningShop, startShop } from '../../src/simulator/index.js';
import { S3Storage } from '../../src/storage/s3-storage.js';
import { type CliResult, failureLine, lastLine, runCli } from '../helpers/cli.js';
import { BUCKET, S3RVER_CLI_ENV, s3rverCliFlags, s3rverOptions } from '../helpers/s3-fixture.js';
import { type S3rverProcess, startS3rver } from '../helpers/s3rver-process.js';

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
}

async function fillDestination(out: string, flags: string[], env: Record<string, string>): Promise<Destination> {
  const shop = await startShop({ seed: 23, products: 5, customers: 5, orders: 200, token: TOKEN });
  try {
    const backup = (extra: Record<string, string> = {}) =>
      runCli(['backup', '--shop', shop.url, '--out', out, '--resources', 'orders', '--json', ...flags], {
        env: { SHOPSNAP_TOKEN: TOKEN, ...env, ...extra },
      });
    const ids: string[] = [];
    for (const expected of [0, 0, 8]) {
      if (expected === 8) await deleteOrders(shop, 150);
      const result = await backup();
      expect(result.code, result.stderr).toBe(expected);
      ids.push(JSON.parse(result.stdout).manifest.snapshot_id);
    }
    const killed = await backup({ TEST_SHOPSNAP_CRASH_AT: 'before-manifest' });
    expect(killed.signal, killed.stderr).toBe('SIGKILL');
    const key = new URL(shop.url).host.replace(':', '-');
    const destination = { out, shop: key, flags, env };
    const unfinished = (await snapshotIdsIn(destination)).filter((id) => !ids.includes(id));
    expect(unfinished).toHaveLength(1);
    const [a, b, incomplete] = ids as [string, string, string];
    return { ...destination, complete: [a, b], incomplete, unfinished: unfinished[0] as string };
  } finally {
    await shop.close();
  }
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

async function deleteOrders(shop: RunningShop, count: number): Promise<void> {
  for (const order of [...shop.records('orders')].slice(0, count)) {
    const response = await fetch(`${shop.url}${API_PREFIX}/orders/${order.id}.json`, {
      method: 'DELETE',
      headers: { 'x-shopify-access-token': TOKEN },
    });
    expect(response.status).toBe(200);
  }
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
  await s3?.stop();
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
      /files checked, 0 missing, 0 extra, 0 differing; the manifest says incomplete \(orders: suspicious shrink \(200 → 50 records\)\)$/,
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
    expect(report.snapshots[2].reason).toBe('orders: suspicious shrink (200 → 50 records)');
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
      `INCOMPLETE ${location}: the manifest says incomplete (orders: suspicious shrink (200 → 50 records))`,
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
    await overwrite(d, `${d.shop}/${b}/manifest.json`, original);
  });
});

async function readManifest(destination: Destination, id: string): Promise<string> {
  if (destination === local) return readFile(join(destination.out, destination.shop, id, 'manifest.json'), 'utf8');
  const chunks: Buffer[] = [];
  for await (const chunk of await s3Storage().get(`${destination.shop}/${id}/manifest.json`)) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

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
