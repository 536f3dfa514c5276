import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { acquireLease, LeaseHeldError } from '../../src/snapshot/lease.js';
import { LocalDirStorage } from '../../src/storage/local-dir-storage.js';
import type { Storage } from '../../src/storage/storage.js';

let root: string;
let storage: LocalDirStorage;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'shopsnap-lease-'));
  storage = new LocalDirStorage(root);
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

/** A clock that only moves when the code under test sleeps. */
function fakeClock(start = 1_000_000) {
  const clock = { now: start, sleeps: 0 };
  return {
    clock,
    now: () => clock.now,
    sleep: async (ms: number) => {
      clock.sleeps++;
      clock.now += ms;
    },
  };
}

describe('acquireLease', () => {
  it('refuses a second run whose predecessor is alive (renews), and allows it after release', async () => {
    const time = fakeClock();
    const first = await acquireLease(storage, 'shop-a', { ttlMs: 60_000, now: time.now, sleep: time.sleep });
    const renewingSleep = async (ms: number) => {
      await time.sleep(ms);
      // the live owner's renewal timer fires meanwhile: rewrite the lease as acquireLease's renewal does
      const body = JSON.parse(await readFile(join(root, 'shop-a', 'lease.json'), 'utf8'));
      body.expires_at = new Date(time.clock.now + 60_000).toISOString();
      await writeFile(join(root, 'shop-a', 'lease.json'), JSON.stringify(body));
    };
    await expect(
      acquireLease(storage, 'shop-a', { ttlMs: 60_000, now: time.now, sleep: renewingSleep }),
    ).rejects.toThrow(LeaseHeldError);
    const other = await acquireLease(storage, 'shop-b', { ttlMs: 60_000, now: time.now, sleep: time.sleep });
    await first.release();
    const sleepsBefore = time.clock.sleeps;
    const second = await acquireLease(storage, 'shop-a', { ttlMs: 60_000, now: time.now, sleep: time.sleep });
    expect(time.clock.sleeps).toBe(sleepsBefore);
    await second.release();
    await other.release();
  });

  it('takes over the lease of a dead run once it expires unrenewed, waiting at most one TTL', async () => {
    const time = fakeClock();
    await acquireLease(storage, 'shop-a', { ttlMs: 60_000, now: time.now, sleep: time.sleep });
    const startedWaiting = time.clock.now;
    const taken = await acquireLease(storage, 'shop-a', { ttlMs: 60_000, now: time.now, sleep: time.sleep });
    expect(time.clock.now - startedWaiting).toBe(60_000);
    expect(time.clock.sleeps).toBeGreaterThan(1);
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
    const time = fakeClock();
    const stale = await acquireLease(storage, 'shop-a', { ttlMs: 1000, now: time.now, sleep: time.sleep });
    time.clock.now += 5000;
    const current = await acquireLease(storage, 'shop-a', { ttlMs: 1000, now: time.now, sleep: time.sleep });
    const owner = JSON.parse(await readFile(join(root, 'shop-a', 'lease.json'), 'utf8')).owner;
    await stale.release();
    expect(JSON.parse(await readFile(join(root, 'shop-a', 'lease.json'), 'utf8')).owner).toBe(owner);
    await current.release();
  });

  it('leaves no lease behind when released while a renewal is still being written', async () => {
    let renewalStarted: () => void = () => undefined;
    const started = new Promise<void>((resolve) => {
      renewalStarted = resolve;
    });
    let finishRenewal: () => void = () => undefined;
    const renewalGate = new Promise<void>((resolve) => {
      finishRenewal = resolve;
    });
    let renewalWritten: Promise<unknown> = Promise.resolve();
    const slowRenewals: Storage = {
      location: storage.location,
      putFile: (...args) => storage.putFile(...args),
      head: (key) => storage.head(key),
      get: (key) => storage.get(key),
      list: (prefix) => storage.list(prefix),
      // Without release waiting for the renewal, the renewal lands right after this delete.
      delete: async (key) => {
        await storage.delete(key);
        finishRenewal();
      },
      putBytes: (key, body, options) => {
        if (options.ifNoneMatch === true) return storage.putBytes(key, body, options);
        renewalStarted();
        const written = renewalGate.then(() => storage.putBytes(key, body, options));
        renewalWritten = written;
        return written;
      },
    };
    const lease = await acquireLease(slowRenewals, 'shop-a', { ttlMs: 30 });
    await started;
    const released = lease.release();
    // Release waiting for the renewal deletes nothing before the renewal is let through.
    setTimeout(finishRenewal, 50);
    await released;
    await renewalWritten;
    expect(await storage.head('shop-a/lease.json')).toBeUndefined();
  });
});
