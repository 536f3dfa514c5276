import { crashPoint } from '../crash-point.js';
import { type Catalog, listSnapshots, type SnapshotEntry } from '../snapshot/catalog.js';
import { checkpointKey, readCheckpoint } from '../snapshot/checkpoint.js';
import { leaseIsLive } from '../snapshot/lease.js';
import { MANIFEST_NAME } from '../snapshot/manifest.js';
import {
  planRetention,
  type RetentionDecision,
  type RetentionPlan,
  type RetentionPolicy,
} from '../snapshot/retention.js';
import { type Storage, StorageError } from '../storage/storage.js';
import { DEFAULT_RESUME_MAX_AGE_MS } from './resume.js';

export interface PruneRequest {
  catalog: Catalog;
  /** Only this shop (its key), within the catalog's scope. */
  shop?: string | undefined;
  policy: Omit<RetentionPolicy, 'resumeMaxAgeMs'>;
  /** Decide and report, remove nothing. */
  dryRun?: boolean;
  now?: number;
  /** Called for each snapshot removed (or that would be), as it goes. */
  onRemove?: (decision: RetentionDecision) => void;
}

export interface PruneReport {
  location: string;
  dryRun: boolean;
  shops: Array<{ shop: string } & RetentionPlan>;
  removed: { snapshots: number; objects: number; bytes: number };
  kept: number;
}

/**
 * Applies the retention policy to every shop in the catalog's scope (see planRetention). A snapshot goes manifest
 * first: from then on nothing takes it for a snapshot, and a prune killed halfway leaves an unfinished one, which
 * the next prune removes.
 */
export async function prune(request: PruneRequest): Promise<PruneReport> {
  const { storage } = request.catalog;
  const now = request.now ?? Date.now();
  const policy = { ...request.policy, resumeMaxAgeMs: DEFAULT_RESUME_MAX_AGE_MS };
  const byShop = new Map<string, SnapshotEntry[]>();
  for (const entry of await listSnapshots(request.catalog)) {
    if (request.shop !== undefined && entry.shop !== request.shop) continue;
    byShop.set(entry.shop, [...(byShop.get(entry.shop) ?? []), entry]);
  }
  const report: PruneReport = {
    location: storage.location,
    dryRun: request.dryRun === true,
    shops: [],
    removed: { snapshots: 0, objects: 0, bytes: 0 },
    kept: 0,
  };
  for (const [shop, entries] of byShop) {
    const checkpoint = entries.some((entry) => entry.state === 'unfinished')
      ? await readCheckpoint(storage, shop)
      : undefined;
    const run = {
      leaseLive: checkpoint !== undefined && (await leaseIsLive(storage, shop, now)),
      checkpointSnapshot: checkpoint?.snapshot_id,
    };
    const plan = planRetention(entries, policy, run, now);
    report.shops.push({ shop, ...plan });
    for (const decision of plan.decisions) {
      if (!decision.remove) {
        report.kept++;
        continue;
      }
      if (!report.dryRun) {
        // Nothing may point a later run at data that is going.
        if (decision.entry.id === run.checkpointSnapshot) await deleteOrExplain(storage, checkpointKey(shop));
        await removeSnapshot(storage, decision.entry);
      }
      report.removed.snapshots++;
      report.removed.objects += decision.entry.objects;
      report.removed.bytes += decision.entry.bytes;
      request.onRemove?.(decision);
    }
  }
  return report;
}

async function removeSnapshot(storage: Storage, entry: SnapshotEntry): Promise<void> {
  const keys: string[] = [];
  for await (const object of storage.list(`${entry.key}/`)) keys.push(object.key);
  const manifest = `${entry.key}/${MANIFEST_NAME}`;
  const ordered = keys.includes(manifest) ? [manifest, ...keys.filter((key) => key !== manifest)] : keys;
  for (const key of ordered) {
    await deleteOrExplain(storage, key);
    crashPoint('mid-prune');
  }
  await storage.abortIncompleteUploads?.(`${entry.key}/`);
}

const DENIED_ERRNOS = new Set(['EACCES', 'EPERM', 'EROFS']);

/**
 * A store that refuses deletes gets one line saying so, and in S3 what to do instead under the uploader policy.
 */
async function deleteOrExplain(storage: Storage, key: string): Promise<void> {
  try {
    await storage.delete(key);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    const denied = error instanceof StorageError ? code === 'ERR_STORAGE_ACCESS' : DENIED_ERRNOS.has(String(code));
    if (!denied) throw error;
    const why = error instanceof StorageError ? ((error.cause as Error | undefined)?.name ?? code) : code;
    const instead = storage.location.startsWith('s3://')
      ? '; the uploader policy (deploy/iam-policy.json) denies deletes by design: prune with a role that may delete, or let the bucket lifecycle rule expire snapshots (deploy/s3-lifecycle.json)'
      : '';
    throw new StorageError(
      'ERR_STORAGE_ACCESS',
      `cannot prune: deleting ${storage.location}/${key} is denied (${why})${instead}`,
      { cause: error },
    );
  }
}
