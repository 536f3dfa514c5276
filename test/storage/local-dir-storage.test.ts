import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalDirStorage } from '../../src/storage/local-dir-storage.js';
import { collect, runStorageContract, sha256 } from './storage.contract.js';

let base: string;
let roots = 0;

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'shopsnap-local-storage-'));
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

runStorageContract('LocalDirStorage', async () => {
  roots += 1;
  return new LocalDirStorage(join(base, `root-${roots}`));
});

describe('LocalDirStorage.abortIncompleteUploads', () => {
  it('sweeps the temp files a killed copy left under the prefix, and only those, with the folders they kept', async () => {
    const root = join(base, 'killed-copies');
    const storage = new LocalDirStorage(root);
    const body = new TextEncoder().encode('{}');
    await storage.putBytes('shop/snap-1/kept.json', body, { sha256: sha256(body) });
    await storage.putBytes('shop/snap-2/other.json', body, { sha256: sha256(body) });
    // What SIGKILL during a copy leaves: a temp file beside the target, in a folder of its own.
    await mkdir(join(root, 'shop', 'snap-1', 'orders'), { recursive: true });
    await writeFile(join(root, 'shop', 'snap-1', 'orders', 'part-0.parquet.0a1b2c.shopsnap-tmp'), 'half');
    await writeFile(join(root, 'shop', 'snap-2', 'x.json.3d4e5f.shopsnap-tmp'), 'half');

    const listed = async (prefix: string) => (await collect(storage.list(prefix))).map((o) => o.key);
    expect(await listed('shop/snap-1/')).toEqual(['shop/snap-1/kept.json']);
    expect(await storage.abortIncompleteUploads('shop/snap-1/')).toBe(1);
    expect(await storage.abortIncompleteUploads('shop/snap-1/')).toBe(0);
    expect(existsSync(join(root, 'shop', 'snap-1', 'orders'))).toBe(false);
    expect(existsSync(join(root, 'shop', 'snap-2', 'x.json.3d4e5f.shopsnap-tmp'))).toBe(true);

    await storage.delete('shop/snap-1/kept.json');
    expect(existsSync(join(root, 'shop', 'snap-1'))).toBe(false);
    expect(await storage.abortIncompleteUploads('')).toBe(1);
    expect(await listed('')).toEqual(['shop/snap-2/other.json']);
  });

  it('removes the empty folders a copy killed before its temp file existed left under the prefix', async () => {
    const root = join(base, 'killed-before-temp');
    const storage = new LocalDirStorage(root);
    const body = new TextEncoder().encode('{}');
    await storage.putBytes('shop/snap-1/ndjson/orders/part-0.ndjson.gz', body, { sha256: sha256(body) });
    await storage.putBytes('shop/snap-2/kept.json', body, { sha256: sha256(body) });
    // A copy makes its folder first; SIGKILL before the temp file leaves the folder alone.
    await mkdir(join(root, 'shop', 'snap-1', 'parquet', 'orders'), { recursive: true });
    await mkdir(join(root, 'shop', 'snap-2', 'parquet', 'orders'), { recursive: true });

    expect(await storage.abortIncompleteUploads('shop/snap-1/')).toBe(0);
    expect(existsSync(join(root, 'shop', 'snap-1', 'parquet'))).toBe(false);
    expect(existsSync(join(root, 'shop', 'snap-2', 'parquet', 'orders'))).toBe(true);
    // Removing the last object then removes the snapshot's folder, as a bucket has no folders of its own.
    await storage.delete('shop/snap-1/ndjson/orders/part-0.ndjson.gz');
    expect(existsSync(join(root, 'shop', 'snap-1'))).toBe(false);

    expect(await storage.abortIncompleteUploads('shop/')).toBe(0);
    expect(existsSync(join(root, 'shop', 'snap-2', 'parquet'))).toBe(false);
    expect(existsSync(join(root, 'shop', 'snap-2', 'kept.json'))).toBe(true);
  });
});
