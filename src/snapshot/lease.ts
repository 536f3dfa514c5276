import { createHash, randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Storage } from '../storage/storage.js';
import { readObjectText, StorageError } from '../storage/storage.js';

export const LEASE_NAME = 'lease.json';
/** A lease not renewed for this long belongs to a dead run and may be taken over. Live runs renew every third. */
export const LEASE_TTL_MS = 2 * 60_000;
const WATCH_INTERVAL_MS = 5_000;

interface LeaseBody {
  owner: string;
  host: string;
  pid: number;
  acquired_at: string;
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

/**
 * One run per shop and destination: a lease object created with create-only semantics and renewed while the run
 * lives. A newcomer that finds it watches it: renewed means its owner is alive, so the newcomer refuses to start;
 * still unrenewed when it expires means the owner died (a killed pod), so the newcomer takes over. A restarted job
 * therefore waits at most one TTL instead of failing on its own dead predecessor.
 */
export async function acquireLease(
  storage: Storage,
  shopKey: string,
  options: { ttlMs?: number; now?: () => number; sleep?: (ms: number) => Promise<void> } = {},
): Promise<Lease> {
  const ttl = options.ttlMs ?? LEASE_TTL_MS;
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const key = `${shopKey}/${LEASE_NAME}`;
  const owner = randomUUID();
  const write = async (createOnly: boolean) => {
    const body = Buffer.from(
      JSON.stringify({
        owner,
        host: hostname(),
        pid: process.pid,
        acquired_at: new Date(now()).toISOString(),
        expires_at: new Date(now() + ttl).toISOString(),
      } satisfies LeaseBody),
    );
    await storage.putBytes(key, body, {
      sha256: createHash('sha256').update(body).digest('hex'),
      ifNoneMatch: createOnly,
    });
  };
  try {
    await write(true);
  } catch (error) {
    if (!(error instanceof StorageError && error.code === 'ERR_STORAGE_EXISTS')) throw error;
    const held = await readLease(storage, key);
    const expiresAt = held === undefined ? 0 : Date.parse(held.expires_at);
    while (held !== undefined && now() < expiresAt) {
      await sleep(Math.min(WATCH_INTERVAL_MS, expiresAt - now()));
      const seen = await readLease(storage, key);
      if (seen === undefined) break;
      if (seen.owner !== held.owner || seen.expires_at !== held.expires_at) {
        throw new LeaseHeldError(
          `another run (pid ${seen.pid} on ${seen.host}, since ${seen.acquired_at}) is backing up ${shopKey} to ${storage.location}`,
        );
      }
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
  }, ttl / 3);
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
