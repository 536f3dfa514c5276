import { createHash, randomUUID } from 'node:crypto';
import { setTimeout as sleepFor } from 'node:timers/promises';
import type { Logger } from '../log.js';
import type { Storage } from '../storage/storage.js';
import { readObjectText, StorageError } from '../storage/storage.js';
import { holderGone, type LeaseHolder, thisProcess } from './lease-holder.js';

export const LEASE_NAME = 'lease.json';
/** A lease not renewed for this long belongs to a dead run and may be taken over. */
export const LEASE_TTL_MS = 2 * 60_000;
/**
 * Live runs renew this often per TTL: a few failed renewals do not lose the lease, and a run on another machine that
 * waits to see one (the proof that the holder lives) waits at most an eighth of the TTL plus one watch interval.
 */
const RENEWALS_PER_TTL = 8;
const WATCH_INTERVAL_MS = 5_000;

interface LeaseBody extends LeaseHolder {
  owner: string;
  acquired_at: string;
  renewed_at: string;
  expires_at: string;
}

export class LeaseHeldError extends Error {
  override name = 'LeaseHeldError';
  readonly code = 'ERR_LEASE_HELD';
}

export interface Lease {
  /** Stops renewing and removes the lease (only if it is still ours). */
  release(): Promise<void>;
}

export interface LeaseOptions {
  ttlMs?: number;
  now?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Ends a wait for another run's lease at once (Ctrl-C). */
  signal?: AbortSignal;
  /** Told what a wait is for and until when, and of every takeover. */
  logger?: Logger;
  /** The process that asks (default: this one); tests pose as others. */
  self?: LeaseHolder;
}

/**
 * One run per shop and destination: a lease object created with create-only semantics and renewed while the run
 * lives. A newcomer that finds it decides at once when it can:
 * - the holder ran on this machine and its process is gone (killed, crashed): taken over at once;
 * - the holder runs on this machine: it is alive, so the newcomer refuses (exit 9) without waiting;
 * - otherwise (another machine, e.g. a killed pod's successor) it watches the lease: renewed means the holder lives, so
 *   the newcomer refuses; unrenewed until it expires means the holder died, so the newcomer takes over. It says what
 *   it waits for and until when, and the signal ends the wait.
 */
export async function acquireLease(storage: Storage, shopKey: string, options: LeaseOptions = {}): Promise<Lease> {
  const ttl = options.ttlMs ?? LEASE_TTL_MS;
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? ((ms: number, signal?: AbortSignal) => sleepFor(ms, undefined, { signal }));
  const self = options.self ?? thisProcess();
  const key = `${shopKey}/${LEASE_NAME}`;
  const owner = randomUUID();
  let acquiredAt = '';
  const write = async (create: boolean) => {
    const atMs = now();
    const at = new Date(atMs).toISOString();
    if (create) acquiredAt = at;
    const body = Buffer.from(
      JSON.stringify({
        owner,
        ...self,
        acquired_at: acquiredAt,
        renewed_at: at,
        expires_at: new Date(atMs + ttl).toISOString(),
      } satisfies LeaseBody),
    );
    await storage.putBytes(key, body, {
      sha256: createHash('sha256').update(body).digest('hex'),
      ifNoneMatch: create,
    });
  };
  const heldBy = (holder: LeaseBody) =>
    new LeaseHeldError(
      `another run is backing up ${shopKey} to ${storage.location}: pid ${holder.pid} on ${holder.host}, started ` +
        `${holder.acquired_at}, lease last renewed ${holder.renewed_at} (it expires ${holder.expires_at} unless renewed)`,
    );
  try {
    await write(true);
  } catch (error) {
    if (!(error instanceof StorageError && error.code === 'ERR_STORAGE_EXISTS')) throw error;
    const held = await readLease(storage, key);
    if (held !== undefined && holderGone(held, self)) {
      options.logger?.info(
        { holder: { host: held.host, pid: held.pid }, renewed_at: held.renewed_at },
        `taking over the lease of pid ${held.pid} on ${held.host}: that process no longer runs`,
      );
    } else if (held !== undefined) {
      const expiresAt = Date.parse(held.expires_at);
      const local = held.host === self.host && held.pid_namespace === self.pid_namespace;
      if (local && now() < expiresAt) throw heldBy(held);
      if (now() < expiresAt) {
        options.logger?.info(
          { holder: { host: held.host, pid: held.pid }, renewed_at: held.renewed_at, expires_at: held.expires_at },
          `waiting for the lease of another run (pid ${held.pid} on ${held.host}, last renewed ${held.renewed_at}): ` +
            `renewed, that run lives and this one exits 9; unrenewed, this run takes it over at ${held.expires_at}`,
        );
      }
      while (now() < expiresAt) {
        options.signal?.throwIfAborted();
        await sleep(Math.min(WATCH_INTERVAL_MS, expiresAt - now()), options.signal);
        const seen = await readLease(storage, key);
        if (seen === undefined) break;
        if (seen.owner !== held.owner || seen.expires_at !== held.expires_at) throw heldBy(seen);
      }
      options.logger?.info(
        { holder: { host: held.host, pid: held.pid }, renewed_at: held.renewed_at },
        `taking over the lease of pid ${held.pid} on ${held.host}: not renewed since ${held.renewed_at}`,
      );
    }
    await storage.delete(key);
    await write(true);
  }
  // One renewal at a time; release waits for it, or a renewal landing after the delete would leave the lease behind.
  let renewing: Promise<void> | undefined;
  const renewal = setInterval(() => {
    renewing ??= write(false)
      .catch(() => {
        // A failed renewal is retried at the next tick; the lease outlives a few missed ones.
      })
      .finally(() => {
        renewing = undefined;
      });
  }, ttl / RENEWALS_PER_TTL);
  renewal.unref();
  return {
    async release() {
      clearInterval(renewal);
      await renewing;
      const held = await readLease(storage, key);
      if (held?.owner === owner) await storage.delete(key);
    },
  };
}

async function readLease(storage: Storage, key: string): Promise<LeaseBody | undefined> {
  try {
    return JSON.parse(await readObjectText(storage, key)) as LeaseBody;
  } catch {
    // Missing or half-written by a crashed run: treat as expired.
    return undefined;
  }
}

/**
 * Whether a run holds the shop's lease now: it has not expired and its holder is not provably gone (a run killed on
 * this machine; a dead run elsewhere is known by its lease expiring within the TTL).
 */
export async function leaseIsLive(storage: Storage, shopKey: string, now: number): Promise<boolean> {
  const held = await readLease(storage, `${shopKey}/${LEASE_NAME}`);
  return held !== undefined && now < Date.parse(held.expires_at) && !holderGone(held);
}
