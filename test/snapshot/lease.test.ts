import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { platform, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { acquireLease, LeaseHeldError } from '../../src/snapshot/lease.js';
import { type LeaseHolder, thisProcess } from '../../src/snapshot/lease-holder.js';
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

/** The lease another run wrote: held by `holder`, last renewed at `renewedMs`. */
async function writeLease(holder: LeaseHolder, renewedMs: number, ttlMs = 60_000): Promise<void> {
  await mkdir(join(root, 'shop-a'), { recursive: true });
  const body = {
    owner: 'another-run',
    ...holder,
    acquired_at: new Date(renewedMs - 300_000).toISOString(),
    renewed_at: new Date(renewedMs).toISOString(),
    expires_at: new Date(renewedMs + ttlMs).toISOString(),
  };
  await writeFile(join(root, 'shop-a', 'lease.json'), JSON.stringify(body));
}

/** A logger whose lines (parsed) the test reads. */
function capturingLogger() {
  const lines: Array<{ msg: string; [key: string]: unknown }> = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { logger: createLogger({ destination }), lines };
}

/** A pid that no longer runs: a child that has exited (and been reaped). */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await once(child, 'exit');
  return child.pid as number;
}

const elsewhere: LeaseHolder = { host: 'another-machine', pid: process.pid };

describe('acquireLease', () => {
  it('refuses at once a second run while the first runs on this machine, naming its times; allows it after release', async () => {
    const time = fakeClock();
    const first = await acquireLease(storage, 'shop-a', { ttlMs: 60_000, now: time.now, sleep: time.sleep });
    const other = await acquireLease(storage, 'shop-b', { ttlMs: 60_000, now: time.now, sleep: time.sleep });
    const started = new Date(time.clock.now).toISOString();
    time.clock.now += 5_000;
    await expect(acquireLease(storage, 'shop-a', { ttlMs: 60_000, now: time.now, sleep: time.sleep })).rejects.toThrow(
      new LeaseHeldError(
        `another run is backing up shop-a to ${root}: pid ${process.pid} on ${thisProcess().host}, started ${started}, ` +
          `lease last renewed ${started} (it expires ${new Date(time.clock.now + 55_000).toISOString()} unless renewed)`,
      ),
    );
    expect(time.clock.sleeps).toBe(0);
    await first.release();
    const second = await acquireLease(storage, 'shop-a', { ttlMs: 60_000, now: time.now, sleep: time.sleep });
    expect(time.clock.sleeps).toBe(0);
    await second.release();
    await other.release();
  });

  it('takes over at once the lease of a process on this machine that no longer runs', async () => {
    const time = fakeClock();
    const { logger, lines } = capturingLogger();
    const pid = await deadPid();
    await writeLease({ ...thisProcess(), pid }, time.clock.now);
    const lease = await acquireLease(storage, 'shop-a', { ttlMs: 60_000, now: time.now, sleep: time.sleep, logger });
    expect(time.clock.sleeps).toBe(0);
    expect(lines.map((line) => line.msg)).toEqual([
      `taking over the lease of pid ${pid} on ${thisProcess().host}: that process no longer runs`,
    ]);
    expect(JSON.parse(await readFile(join(root, 'shop-a', 'lease.json'), 'utf8')).pid).toBe(process.pid);
    await lease.release();
  });

  it.runIf(platform() === 'linux')(
    'takes a pid now used by a process started at another time for a gone holder',
    async () => {
      const time = fakeClock();
      await writeLease({ ...thisProcess(), pid_started: '1' }, time.clock.now);
      const lease = await acquireLease(storage, 'shop-a', { ttlMs: 60_000, now: time.now, sleep: time.sleep });
      expect(time.clock.sleeps).toBe(0);
      await lease.release();
    },
  );

  it('watches a holder on another machine, says what it waits for and until when, and refuses once it is renewed', async () => {
    const time = fakeClock();
    const { logger, lines } = capturingLogger();
    const renewed = time.clock.now - 10_000;
    await writeLease(elsewhere, renewed);
    let renewedAgain = '';
    const renewingSleep = async (ms: number) => {
      await time.sleep(ms);
      if (time.clock.sleeps < 2) return;
      // The other run's renewal lands while this one watches.
      renewedAgain = new Date(time.clock.now).toISOString();
      await writeLease(elsewhere, time.clock.now);
    };
    const refused = acquireLease(storage, 'shop-a', { ttlMs: 60_000, now: time.now, sleep: renewingSleep, logger });
    await expect(refused).rejects.toThrow(LeaseHeldError);
    await expect(refused).rejects.toThrow(`lease last renewed ${renewedAgain} `);
    expect(time.clock.sleeps).toBe(2);
    const expires = new Date(renewed + 60_000).toISOString();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 30,
      holder: { host: 'another-machine', pid: process.pid },
      renewed_at: new Date(renewed).toISOString(),
      expires_at: expires,
      msg:
        `waiting for the lease of another run (pid ${process.pid} on another-machine, last renewed ` +
        `${new Date(renewed).toISOString()}): renewed, that run lives and this one exits 9; unrenewed, this run ` +
        `takes it over at ${expires}`,
    });
  });

  it('takes over the lease of a run on another machine once it expires unrenewed, waiting exactly until then', async () => {
    const time = fakeClock();
    await writeLease(elsewhere, time.clock.now - 10_000);
    const startedWaiting = time.clock.now;
    const taken = await acquireLease(storage, 'shop-a', { ttlMs: 60_000, now: time.now, sleep: time.sleep });
    expect(time.clock.now - startedWaiting).toBe(50_000);
    expect(time.clock.sleeps).toBeGreaterThan(1);
    await taken.release();
  });

  it('counts a holder in another pid namespace of the same host as another machine (its pid means nothing here)', async () => {
    const time = fakeClock();
    await writeLease({ ...thisProcess(), pid_namespace: 'another-boot/pid:[1]', pid: await deadPid() }, time.clock.now);
    const taken = await acquireLease(storage, 'shop-a', { ttlMs: 60_000, now: time.now, sleep: time.sleep });
    expect(time.clock.now).toBe(1_000_000 + 60_000);
    await taken.release();
  });

  it('ends the wait at once when the signal aborts it', async () => {
    await writeLease(elsewhere, Date.now());
    const controller = new AbortController();
    const { logger, lines } = capturingLogger();
    const waiting = acquireLease(storage, 'shop-a', { ttlMs: 60_000, signal: controller.signal, logger });
    await expect.poll(() => lines.length).toBe(1);
    const abortedAt = performance.now();
    controller.abort();
    await expect(waiting).rejects.toMatchObject({ name: 'AbortError' });
    expect(performance.now() - abortedAt).toBeLessThan(1_000);
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
      readRange: (key, range) => storage.readRange(key, range),
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
