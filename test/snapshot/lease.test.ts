import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { acquireLease, LeaseHeldError } from '../../src/snapshot/lease.js';
import { LocalDirStorage } from '../../src/storage/local-dir-storage.js';

let root: string;
let storage: LocalDirStorage;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'shopsnap-lease-'));
  storage = new LocalDirStorage(root);
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('acquireLease', () => {
  it('refuses a second run while the first holds the lease, and allows it after release', async () => {
    const first = await acquireLease(storage, 'shop-a');
    await expect(acquireLease(storage, 'shop-a')).rejects.toThrow(LeaseHeldError);
    const other = await acquireLease(storage, 'shop-b');
    await first.release();
    const second = await acquireLease(storage, 'shop-a');
    await second.release();
    await other.release();
  });

  it('takes over a lease whose owner died (expired)', async () => {
    let clock = 1_000_000;
    await acquireLease(storage, 'shop-a', { ttlMs: 60_000, now: () => clock });
    clock += 59_000;
    await expect(acquireLease(storage, 'shop-a', { ttlMs: 60_000, now: () => clock })).rejects.toThrow(
      /holds the lease/,
    );
    clock += 2_000;
    const taken = await acquireLease(storage, 'shop-a', { ttlMs: 60_000, now: () => clock });
    await taken.release();
  });

  it('treats a half-written lease as expired', async () => {
    await mkdir(join(root, 'shop-a'));
    await writeFile(join(root, 'shop-a', 'lease.json'), '{"own');
    const lease = await acquireLease(storage, 'shop-a');
    expect(JSON.parse(await readFile(join(root, 'shop-a', 'lease.json'), 'utf8')).pid).toBe(process.pid);
    await lease.release();
  });

  it('release does not remove a lease another run took over', async () => {
    let clock = 0;
    const stale = await acquireLease(storage, 'shop-a', { ttlMs: 1000, now: () => clock });
    clock += 5000;
    const current = await acquireLease(storage, 'shop-a', { ttlMs: 1000, now: () => clock });
    await stale.release();
    const body = JSON.parse(await readFile(join(root, 'shop-a', 'lease.json'), 'utf8'));
    expect(body.pid).toBe(process.pid);
    await expect(acquireLease(storage, 'shop-a', { ttlMs: 1000, now: () => clock })).rejects.toThrow(LeaseHeldError);
    await current.release();
  });
});
