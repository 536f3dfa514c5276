import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CatalogScope,
  catalogLocation,
  completeSnapshots,
  listSnapshots,
  openCatalog,
} from '../../src/snapshot/catalog.js';
import { type Manifest, serializeManifest } from '../../src/snapshot/manifest.js';
import { findPreviousManifest } from '../../src/snapshot/previous.js';
import { LocalDirStorage, type Storage } from '../../src/storage/index.js';
import { S3Storage } from '../../src/storage/s3-storage.js';
import { BUCKET, s3rverOptions } from '../helpers/s3-fixture.js';
import { type S3rverProcess, startS3rver } from '../helpers/s3rver-process.js';

const SHOP = 'acme.myshopify.com';
const OTHER = 'other.myshopify.com';
const [OLD, UNFINISHED, INCOMPLETE, DAMAGED, NEW] = [
  '20261101T010000000Z',
  '20261102T010000000Z',
  '20261103T010000000Z',
  '20261104T010000000Z',
  '20261105T010000000Z',
];

function manifest(id: string, status: Manifest['status']): Manifest {
  return {
    format: 'shopsnap.manifest/v1',
    status,
    shop: SHOP,
    api_version: '2022-01',
    snapshot_id: id,
    schema_version: 1,
    started_at: '',
    finished_at: '',
    resources: {},
    tables: {},
    files: [],
  };
}

/** A destination as runs leave it: snapshots in every state, a lease, a fleet summary and a staging folder. */
const TREE: Record<string, string | Uint8Array> = {
  [`${SHOP}/${OLD}/raw/orders/part-00000.jsonl.gz`]: 'x'.repeat(10),
  [`${SHOP}/${OLD}/manifest.json`]: serializeManifest(manifest(OLD, 'complete')),
  [`${SHOP}/${UNFINISHED}/raw/orders/part-00000.jsonl.gz`]: 'y'.repeat(7),
  [`${SHOP}/${INCOMPLETE}/manifest.json`]: serializeManifest(manifest(INCOMPLETE, 'incomplete')),
  [`${SHOP}/${DAMAGED}/manifest.json`]: '{"format":"shopsnap.manif',
  [`${SHOP}/${NEW}/manifest.json`]: serializeManifest(manifest(NEW, 'complete')),
  [`${SHOP}/lease.json`]: '{}',
  [`${SHOP}/checkpoint.json`]: '{}',
  [`${OTHER}/${OLD}/manifest.json`]: serializeManifest({ ...manifest(OLD, 'complete'), shop: OTHER }),
  'fleet-summary.json': '{}',
};

async function fill(storage: Storage): Promise<void> {
  for (const [key, content] of Object.entries(TREE)) {
    const body = typeof content === 'string' ? Buffer.from(content) : content;
    await storage.putBytes(key, body, { sha256: createHash('sha256').update(body).digest('hex') });
  }
}

const backends: Array<{ name: string; root: () => string; settings: () => object }> = [];
let local: string;
let s3rver: S3rverProcess;

beforeAll(async () => {
  local = await mkdtemp(join(tmpdir(), 'shopsnap-catalog-'));
  await fill(new LocalDirStorage(local));
  s3rver = await startS3rver([BUCKET]);
  await fill(new S3Storage({ bucket: BUCKET, prefix: 'backups', ...s3rverOptions(s3rver.endpoint) }));
});

afterAll(async () => {
  await rm(local, { recursive: true, force: true });
  await s3rver?.stop();
});

backends.push(
  { name: 'a local directory', root: () => local, settings: () => ({}) },
  { name: 's3rver', root: () => `s3://${BUCKET}/backups`, settings: () => s3rverOptions(s3rver.endpoint) },
);

describe.each(backends)('the catalog of $name', ({ root, settings }) => {
  it.each<[string, string, CatalogScope, string]>([
    ['the destination', '', { kind: 'destination' }, ''],
    ['a shop folder', `/${SHOP}`, { kind: 'shop', shop: SHOP }, `/${SHOP}`],
    ['a snapshot', `/${SHOP}/${OLD}`, { kind: 'snapshot', shop: SHOP, id: OLD }, `/${SHOP}/${OLD}`],
    [
      "a snapshot's manifest",
      `/${SHOP}/${OLD}/manifest.json`,
      { kind: 'snapshot', shop: SHOP, id: OLD },
      `/${SHOP}/${OLD}`,
    ],
    ['a trailing slash', `/${SHOP}/`, { kind: 'shop', shop: SHOP }, `/${SHOP}`],
  ])('reads %s as its scope', async (_, path, scope, location) => {
    const catalog = await openCatalog(`${root()}${path}`, settings());
    expect(catalog.scope).toEqual(scope);
    expect(catalog.storage.location).toBe(root());
    expect(catalogLocation(catalog)).toBe(`${root()}${location}`);
  });

  it('lists every snapshot of the destination with its state, through manifests', async () => {
    const entries = await listSnapshots(await openCatalog(root(), settings()));
    expect(entries.map(({ key, state }) => [key, state])).toEqual([
      [`${SHOP}/${OLD}`, 'complete'],
      [`${SHOP}/${UNFINISHED}`, 'unfinished'],
      [`${SHOP}/${INCOMPLETE}`, 'incomplete'],
      [`${SHOP}/${DAMAGED}`, 'damaged'],
      [`${SHOP}/${NEW}`, 'complete'],
      [`${OTHER}/${OLD}`, 'complete'],
    ]);
    const old = entries[0];
    expect(old?.objects).toBe(2);
    expect(old?.bytes).toBe(10 + (TREE[`${SHOP}/${OLD}/manifest.json`] as Uint8Array).length);
    expect(entries[3]?.problem).toMatch(/manifest\.json is not valid JSON/);
    expect(completeSnapshots(entries).map((entry) => entry.manifest.snapshot_id)).toEqual([OLD, NEW, OLD]);
  });

  it('lists only the named shop or snapshot', async () => {
    const shop = await listSnapshots(await openCatalog(`${root()}/${OTHER}`, settings()));
    expect(shop.map((entry) => entry.key)).toEqual([`${OTHER}/${OLD}`]);
    const one = await listSnapshots(await openCatalog(`${root()}/${SHOP}/${INCOMPLETE}`, settings()));
    expect(one.map((entry) => [entry.key, entry.manifest?.status])).toEqual([[`${SHOP}/${INCOMPLETE}`, 'incomplete']]);
  });

  it('finds the newest complete snapshot before an id, past damaged and incomplete ones', async () => {
    const { storage } = await openCatalog(root(), settings());
    expect((await findPreviousManifest(storage, SHOP, '20261106T000000000Z'))?.snapshot_id).toBe(NEW);
    expect((await findPreviousManifest(storage, SHOP, NEW))?.snapshot_id).toBe(OLD);
    expect(await findPreviousManifest(storage, SHOP, OLD)).toBeUndefined();
  });
});
