import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseShopAddress } from '../../src/cli/shop-address.js';
import { type RunningShop, startShop } from '../../src/simulator/index.js';
import { listSnapshots } from '../../src/snapshot/catalog.js';
import { type LeaseHolder, thisProcess } from '../../src/snapshot/lease-holder.js';
import { MANIFEST_NAME, type Manifest, parseManifest, serializeManifest } from '../../src/snapshot/manifest.js';
import { newSnapshotId } from '../../src/snapshot/snapshot-id.js';
import { LocalDirStorage, readObjectText, type Storage } from '../../src/storage/index.js';
import { S3Storage } from '../../src/storage/s3-storage.js';
import { failureLine, runCli } from '../helpers/cli.js';
import { type FaultProxy, startFaultProxy } from '../helpers/s3-fault-proxy.js';
import { BUCKET, S3RVER_CLI_ENV, s3rverCliFlags, s3rverOptions } from '../helpers/s3-fixture.js';
import { type S3rverProcess, startS3rver } from '../helpers/s3rver-process.js';

const TOKEN = 'shpat_prune_e2e_77c1';
const DAY_MS = 24 * 60 * 60_000;
const SHOP = 'acme.myshopify.com';

let shop: RunningShop;
let s3: S3rverProcess;
let proxy: FaultProxy;
let work: string;
/** A real snapshot the CLI wrote: planted copies of it stand for snapshots of other days. */
let template: { storage: Storage; key: string; manifest: Manifest };

beforeAll(async () => {
  [shop, s3] = await Promise.all([
    startShop({ seed: 11, products: 15, customers: 30, orders: 20, token: TOKEN }),
    startS3rver([BUCKET]),
  ]);
  proxy = await startFaultProxy(s3.endpoint);
  work = await mkdtemp(join(tmpdir(), 'shopsnap-prune-'));
  const out = join(work, 'template');
  const run = await runCli(
    [
      'backup',
      '--shop',
      shop.url,
      '--out',
      out,
      '--resources',
      'products,customers',
      '--formats',
      'raw,ndjson',
      '--json',
    ],
    { env: { SHOPSNAP_TOKEN: TOKEN } },
  );
  expect(run.code, run.stderr).toBe(0);
  const { manifest } = JSON.parse(run.stdout) as { manifest: Manifest };
  template = { storage: new LocalDirStorage(out), key: `${manifest.shop}/${manifest.snapshot_id}`, manifest };
});

afterAll(async () => {
  await proxy?.close();
  await Promise.all([shop?.close(), s3?.stop()]);
  await rm(work, { recursive: true, force: true });
});

type Planted = 'complete' | 'incomplete' | 'unfinished';

/** Copies the template snapshot into `storage` as a snapshot of `shopKey` started `ageDays` ago, in `state`. */
async function plant(storage: Storage, ageDays: number, state: Planted, shopKey = SHOP): Promise<string> {
  const started = new Date(Date.now() - ageDays * DAY_MS);
  const id = newSnapshotId(started);
  for (const file of template.manifest.files) {
    const chunks: Buffer[] = [];
    for await (const chunk of await template.storage.get(`${template.key}/${file.path}`)) chunks.push(chunk);
    await put(storage, `${shopKey}/${id}/${file.path}`, Buffer.concat(chunks));
  }
  if (state !== 'unfinished') {
    const manifest: Manifest = {
      ...template.manifest,
      shop: shopKey,
      snapshot_id: id,
      status: state,
      started_at: started.toISOString(),
      finished_at: new Date(started.getTime() + 60_000).toISOString(),
    };
    await put(storage, `${shopKey}/${id}/${MANIFEST_NAME}`, serializeManifest(manifest));
  }
  return id;
}

async function put(storage: Storage, key: string, body: Uint8Array): Promise<void> {
  await storage.putBytes(key, body, { sha256: createHash('sha256').update(body).digest('hex') });
}

/**
 * What a run holds while it works on `id`: its lease (unexpired or expired; by default held on another machine) and
 * its checkpoint naming the snapshot.
 */
async function plantRun(
  storage: Storage,
  id: string,
  leaseExpiresInMs: number,
  shopKey = SHOP,
  holder: LeaseHolder = { host: 'elsewhere', pid: 1 },
): Promise<void> {
  const now = Date.now();
  const lease = { owner: 'other-run', ...holder, acquired_at: new Date(now - 60_000).toISOString() };
  await put(
    storage,
    `${shopKey}/lease.json`,
    Buffer.from(JSON.stringify({ ...lease, expires_at: new Date(now + leaseExpiresInMs).toISOString() })),
  );
  const { started_at } = parseManifest(
    await readObjectText(template.storage, `${template.key}/${MANIFEST_NAME}`),
    'template',
  );
  await put(
    storage,
    `${shopKey}/checkpoint.json`,
    Buffer.from(
      JSON.stringify({
        format: 'shopsnap.checkpoint/v1',
        shop: shopKey,
        snapshot_id: id,
        api_version: '2022-01',
        schema_version: 1,
        started_at,
        updated_at: started_at,
        requested: { resources: ['products', 'customers'], formats: ['raw', 'ndjson'] },
        attempts: 0,
        earlier_requests: 0,
        attempt_requests: 0,
        resources: {},
      }),
    ),
  );
}

async function keysOf(storage: Storage): Promise<string[]> {
  const keys: string[] = [];
  for await (const object of storage.list('')) keys.push(object.key);
  return keys.sort();
}

async function states(storage: Storage): Promise<Record<string, string>> {
  const entries = await listSnapshots({ storage, scope: { kind: 'destination' } });
  return Object.fromEntries(entries.map((entry) => [entry.id, entry.state]));
}

interface Destination {
  name: string;
  /** A fresh, empty destination: its storage, its location on the command line, and what the CLI needs for it. */
  open(name: string): { storage: Storage; location: string; flags: string[]; env: Record<string, string> };
}

const DESTINATIONS: Destination[] = [
  {
    name: 'a local directory',
    open: (name) => {
      const location = join(work, name);
      return { storage: new LocalDirStorage(location), location, flags: [], env: {} };
    },
  },
  {
    name: 's3rver',
    open: (name) => ({
      storage: new S3Storage({ bucket: BUCKET, prefix: name, ...s3rverOptions(proxy.endpoint) }),
      location: `s3://${BUCKET}/${name}`,
      flags: s3rverCliFlags(proxy.endpoint),
      env: S3RVER_CLI_ENV,
    }),
  },
];

describe.each(DESTINATIONS)('shopsnap prune on $name', (destination) => {
  const prune = (target: ReturnType<Destination['open']>, args: string[], env: Record<string, string> = {}) =>
    runCli(['prune', target.location, ...args, ...target.flags], { env: { ...target.env, ...env } });

  it('removes complete snapshots older than the window, but never the newest keep-last complete ones', async () => {
    const target = destination.open('window');
    const [d100, d90, d40, d1] = [
      await plant(target.storage, 100, 'complete'),
      await plant(target.storage, 90, 'complete'),
      await plant(target.storage, 40, 'complete'),
      await plant(target.storage, 1, 'complete'),
    ];
    const i50 = await plant(target.storage, 50, 'incomplete');
    const i10 = await plant(target.storage, 10, 'incomplete');
    const other = await plant(target.storage, 100, 'complete', 'other.myshopify.com');
    const otherNew = await plant(target.storage, 2, 'complete', 'other.myshopify.com');
    const before = await keysOf(target.storage);

    const result = await prune(target, ['--keep-within', '35d', '--keep-last', '3']);
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    const files = template.manifest.files.length + 1;
    expect(lines.filter((line) => line.startsWith('removed '))).toEqual([
      expect.stringMatching(
        new RegExp(`^removed ${SHOP}/${d100}  complete  ${files} files  .+  \\(older than 35 days\\)$`),
      ),
      expect.stringMatching(
        new RegExp(`^removed ${SHOP}/${i50}  incomplete  ${files} files  .+  \\(older than 35 days\\)$`),
      ),
      expect.stringMatching(new RegExp(`^removed 2 snapshots \\(${2 * files} files, .+\\); kept 6$`)),
    ]);
    // keep-last counts per shop: the other shop's old snapshot is one of its newest 3.
    expect(await states(target.storage)).toEqual({
      [d90]: 'complete',
      [d40]: 'complete',
      [i10]: 'incomplete',
      [d1]: 'complete',
      [other]: 'complete',
      [otherNew]: 'complete',
    });
    // Whole snapshots, not a key more.
    const gone = before.filter((key) => !key.includes(d100) && !key.includes(i50));
    expect(await keysOf(target.storage)).toEqual(gone);
  });

  it('removes nothing while the newest complete snapshot is itself older than the window', async () => {
    const target = destination.open('stale');
    await plant(target.storage, 100, 'complete');
    await plant(target.storage, 60, 'complete');
    await plant(target.storage, 50, 'incomplete');
    await plant(target.storage, 5, 'incomplete');
    const before = await keysOf(target.storage);
    const result = await prune(target, ['--keep-within', '35d', '--keep-last', '0']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(
      new RegExp(
        `^held ${SHOP}: the newest complete snapshot \\(\\d{8}T\\d{9}Z\\) is older than 35 days, so every snapshot with a manifest stays\\n`,
      ),
    );
    expect(result.stdout).toMatch(/\nremoved 0 snapshots \(0 files, 0 B\); kept 4\n$/);
    expect(await keysOf(target.storage)).toEqual(before);
  });

  it('removes abandoned unfinished snapshots past the resume age, not one that may resume or a live run works on', async () => {
    const target = destination.open('unfinished');
    await plant(target.storage, 1, 'complete');
    const abandoned = await plant(target.storage, 2, 'unfinished');
    const resumable = await plant(target.storage, 0.5, 'unfinished');
    const live = await plant(target.storage, 3, 'unfinished', 'live.myshopify.com');
    await plant(target.storage, 1, 'complete', 'live.myshopify.com');
    await plantRun(target.storage, live, 60_000, 'live.myshopify.com');
    const dead = await plant(target.storage, 3, 'unfinished', 'dead.myshopify.com');
    await plantRun(target.storage, dead, -60_000, 'dead.myshopify.com');
    // A run killed on this machine: its lease has not expired yet, but its process is gone.
    const killed = await plant(target.storage, 3, 'unfinished', 'killed.myshopify.com');
    const exited = spawnSync(process.execPath, ['-e', '']).pid;
    await plantRun(target.storage, killed, 60_000, 'killed.myshopify.com', { ...thisProcess(), pid: exited });

    const result = await prune(target, ['--keep-within', '35d']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`removed ${SHOP}/${abandoned}  unfinished  `);
    expect(result.stdout).toContain('(abandoned: unfinished, started more than 1 day ago)');
    expect(result.stdout).toContain(`removed dead.myshopify.com/${dead}  unfinished  `);
    expect(result.stdout).toContain(`removed killed.myshopify.com/${killed}  unfinished  `);
    expect(result.stdout).toMatch(/\nremoved 3 snapshots /);
    const left = await states(target.storage);
    expect(left[abandoned]).toBeUndefined();
    expect(left[dead]).toBeUndefined();
    expect(left[killed]).toBeUndefined();
    expect(left[resumable]).toBe('unfinished');
    expect(left[live]).toBe('unfinished');
    const keys = await keysOf(target.storage);
    // The dead run's checkpoint no longer points a later run at data that is gone; the live run's stays.
    expect(keys).not.toContain('dead.myshopify.com/checkpoint.json');
    expect(keys).toContain('live.myshopify.com/checkpoint.json');
  });

  it('--dry-run says what would go and removes nothing; --json lists every snapshot with its reason', async () => {
    const target = destination.open('dry');
    const old = await plant(target.storage, 40, 'complete');
    const recent = await plant(target.storage, 3, 'complete');
    const before = await keysOf(target.storage);
    const dry = await prune(target, ['--keep-within', '35d', '--keep-last', '1', '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(new RegExp(`^would remove ${SHOP}/${old}  complete  .+\\(older than 35 days\\)\\n`));
    expect(dry.stdout).toMatch(/\nwould remove 1 snapshot \(\d+ files, .+\); kept 1\n$/);
    expect(await keysOf(target.storage)).toEqual(before);

    const json = await prune(target, ['--keep-within', '35d', '--keep-last', '1', '--dry-run', '--json']);
    expect(json.code, json.stderr).toBe(0);
    const report = JSON.parse(json.stdout);
    expect(report).toMatchObject({
      dry_run: true,
      keep_within: '35 days',
      keep_last: 1,
      kept: 1,
      removed: { snapshots: 1, objects: template.manifest.files.length + 1 },
      snapshots: [
        { shop: SHOP, id: old, state: 'complete', action: 'remove', reason: 'older than 35 days' },
        { shop: SHOP, id: recent, state: 'complete', action: 'keep', reason: 'the newest complete snapshot' },
      ],
    });
    expect(await keysOf(target.storage)).toEqual(before);
  });

  it('a prune killed halfway leaves no complete snapshot behind, and the next prune finishes the removal', async () => {
    const target = destination.open('killed');
    const old = await plant(target.storage, 40, 'complete');
    await plant(target.storage, 3, 'complete');
    const killed = await prune(target, ['--keep-within', '35d', '--keep-last', '1'], {
      TEST_SHOPSNAP_CRASH_AT: 'mid-prune:2',
    });
    expect(killed.signal).toBe('SIGKILL');
    // The manifest went first: what is left of the snapshot is no snapshot.
    expect((await states(target.storage))[old]).toBe('unfinished');
    expect((await keysOf(target.storage)).filter((key) => key.includes(old)).length).toBeGreaterThan(0);
    const rerun = await prune(target, ['--keep-within', '35d', '--keep-last', '1']);
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(rerun.stdout).toContain(`removed ${SHOP}/${old}  unfinished  `);
    expect((await keysOf(target.storage)).filter((key) => key.includes(old))).toEqual([]);
  });
});

describe('shopsnap prune in S3 under the uploader policy (deletes denied except lease and checkpoint)', () => {
  it('says in one line that it needs a role that may delete, exits 7, and removes nothing', async () => {
    const storage = new S3Storage({ bucket: BUCKET, prefix: 'denied', ...s3rverOptions(proxy.endpoint) });
    await plant(storage, 40, 'complete');
    await plant(storage, 3, 'complete');
    const before = await keysOf(storage);
    proxy.setFault((request) =>
      request.op === 'DeleteObject' && !/\/(lease|checkpoint)\.json$/.test(request.key)
        ? { status: 403, code: 'AccessDenied' }
        : undefined,
    );
    try {
      const result = await runCli(
        [
          'prune',
          `s3://${BUCKET}/denied`,
          '--keep-within',
          '35d',
          '--keep-last',
          '1',
          ...s3rverCliFlags(proxy.endpoint),
        ],
        { env: S3RVER_CLI_ENV },
      );
      expect(result.code, result.stderr).toBe(7);
      expect(failureLine(result.stderr)).toMatch(
        new RegExp(
          `^shopsnap: cannot prune: deleting s3://${BUCKET}/denied/${SHOP}/\\d{8}T\\d{9}Z/manifest\\.json is denied \\(AccessDenied\\); .*a role that may delete.*deploy/s3-lifecycle\\.json`,
        ),
      );
      expect(result.stdout).not.toContain('removed');
    } finally {
      proxy.setFault(undefined);
    }
    expect(await keysOf(storage)).toEqual(before);
  });
});

describe('shopsnap prune usage', () => {
  it('says when there is nothing to prune', async () => {
    const empty = join(work, 'empty');
    const result = await runCli(['prune', empty, '--keep-within', '35d', '--shop', 'my-shop']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(`no snapshots of my-shop.myshopify.com under ${empty}\n`);
  });

  it.each([
    ['no window', ['prune', '/nonexistent'], /^shopsnap: --keep-within is required: the window, e\.g\. 35d or 12h$/],
    [
      'a window without unit',
      ['prune', '/nonexistent', '--keep-within', '35'],
      /^shopsnap: --keep-within must be days or hours, e\.g\. 35d or 12h$/,
    ],
    [
      'a negative keep-last',
      ['prune', '/nonexistent', '--keep-within', '35d', '--keep-last', '-1'],
      /^shopsnap: --keep-last must be a whole number from 0 to 1000000$/,
    ],
  ])('%s exits 2', async (_name, args, message) => {
    const result = await runCli(args);
    expect(result.code).toBe(2);
    expect(failureLine(result.stderr)).toMatch(message);
  });
});

describe('shopsnap run with retention: in the job', () => {
  /** A job of the simulated shop (and optionally one that fails) into `out`, keeping 35 days and at least one. */
  async function job(name: string, out: string, extraShops = ''): Promise<string> {
    const path = join(work, `${name}.yaml`);
    const text = [
      `name: ${name}`,
      'shops:',
      `  - shop: ${shop.url}`,
      '    token_env: SHOP_TOKEN',
      extraShops,
      'resources: [products, customers]',
      'formats: [raw, ndjson]',
      `out: ${out}`,
      'retention: { keep_within_days: 35, keep_last: 1 }',
    ];
    await writeFile(path, `${text.filter((line) => line !== '').join('\n')}\n`);
    return path;
  }

  it('prunes each shop after its complete snapshot, and not a shop whose backup failed', async () => {
    const out = join(work, 'run-local');
    const storage = new LocalDirStorage(out);
    const shopKey = parseShopAddress(shop.url).key;
    const old = await plant(storage, 40, 'complete', shopKey);
    const abandoned = await plant(storage, 2, 'unfinished', shopKey);
    const recent = await plant(storage, 3, 'complete', shopKey);
    // A shop whose token variable is unset fails; its old snapshot stays.
    const failingOld = await plant(storage, 40, 'complete', '127.0.0.1-9');
    const failingRecent = await plant(storage, 3, 'complete', '127.0.0.1-9');
    const path = await job('run-local', out, '  - shop: http://127.0.0.1:9\n    token_env: UNSET_TOKEN_VARIABLE');

    const result = await runCli(['run', path, '--json'], { env: { SHOP_TOKEN: TOKEN } });
    expect(result.code, result.stderr).toBe(2);
    const { shops } = JSON.parse(result.stdout) as { shops: Array<Record<string, unknown>> };
    const files = template.manifest.files.length;
    expect(shops[0]).toMatchObject({
      shop: shopKey,
      status: 'complete',
      pruned: { snapshots: 2, objects: 2 * files + 1 },
    });
    expect(shops[1]).toMatchObject({ shop: '127.0.0.1-9', status: 'failed' });
    expect(shops[1]).not.toHaveProperty('pruned');
    const left = await states(storage);
    expect(left[old]).toBeUndefined();
    expect(left[abandoned]).toBeUndefined();
    expect(left[recent]).toBe('complete');
    expect(left[failingOld]).toBe('complete');
    expect(left[failingRecent]).toBe('complete');
    expect(Object.values(left).filter((state) => state === 'complete')).toHaveLength(4);
    // The removals are logged, one line per snapshot.
    const logged = result.stderr.split('\n').filter((line) => line.includes('"msg":"removed snapshot"'));
    expect(logged).toHaveLength(2);
  });

  it('in S3 under the uploader policy: the snapshot stands, pruning fails in one line, exit 7', async () => {
    const prefix = 'run-denied';
    const storage = new S3Storage({ bucket: BUCKET, prefix, ...s3rverOptions(proxy.endpoint) });
    const shopKey = parseShopAddress(shop.url).key;
    const old = await plant(storage, 40, 'complete', shopKey);
    const path = await job(prefix, `s3://${BUCKET}/${prefix}`);
    proxy.setFault((request) =>
      request.op === 'DeleteObject' && !/\/(lease|checkpoint)\.json$/.test(request.key)
        ? { status: 403, code: 'AccessDenied' }
        : undefined,
    );
    try {
      const result = await runCli(['run', path, ...s3rverCliFlags(proxy.endpoint)], {
        env: { SHOP_TOKEN: TOKEN, ...S3RVER_CLI_ENV },
      });
      expect(result.code, result.stderr).toBe(7);
      expect(result.stdout).toMatch(new RegExp(`^s3://${BUCKET}/${prefix}/${shopKey}/\\d{8}T\\d{9}Z\\n$`));
      expect(failureLine(result.stderr)).toMatch(
        new RegExp(
          `^shopsnap: ${shopKey}: cannot prune: deleting s3://${BUCKET}/${prefix}/${shopKey}/${old}/manifest\\.json is denied \\(AccessDenied\\)`,
        ),
      );
    } finally {
      proxy.setFault(undefined);
    }
    const left = await states(storage);
    expect(left[old]).toBe('complete');
    expect(Object.values(left)).toEqual(['complete', 'complete']);
  });
});
