import type { Storage } from '../storage/storage.js';
import { completeSnapshots, listSnapshots } from './catalog.js';
import type { Manifest } from './manifest.js';

/** The newest complete snapshot of the shop older than `beforeId`, or undefined. */
export async function findPreviousManifest(
  storage: Storage,
  shopKey: string,
  beforeId: string,
): Promise<Manifest | undefined> {
  const entries = await listSnapshots({ storage, scope: { kind: 'shop', shop: shopKey } });
  return completeSnapshots(entries)
    .filter((entry) => entry.id < beforeId)
    .at(-1)?.manifest;
}

/**
 * A share of records that vanished since the last complete snapshot large enough to suspect a revoked scope
 * (`read_all_orders` hides orders older than 60 days) or a default filter rather than real deletions.
 */
export const SHRINK_THRESHOLD = 0.5;

/**
 * The resources of which more than `threshold` of the previous complete snapshot's records are gone: removed by the
 * record indexes' changes (new records do not hide deleted ones), or, where those are not known (a previous snapshot
 * without an index), by how far the exported count fell.
 */
export function detectShrink(
  previous: Manifest | undefined,
  current: Manifest['resources'],
  changes: Manifest['changes'],
  threshold = SHRINK_THRESHOLD,
): NonNullable<Manifest['suspicious_shrink']> {
  if (previous === undefined) return [];
  return Object.entries(current).flatMap(([resource, summary]) => {
    const name = resource as keyof Manifest['resources'];
    const before = previous.resources[name]?.exported;
    if (before === undefined || summary === undefined || before === 0) return [];
    const removed = changes?.resources[name]?.removed ?? Math.max(0, before - summary.exported);
    return removed > before * threshold ? [{ resource, previous: before, current: summary.exported, removed }] : [];
  });
}
