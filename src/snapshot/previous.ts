import { readObjectText, type Storage } from '../storage/storage.js';
import { MANIFEST_NAME, type Manifest, parseManifest } from './manifest.js';
import { isSnapshotId } from './snapshot-id.js';

/** The newest complete snapshot of the shop older than `beforeId`, or undefined. */
export async function findPreviousManifest(
  storage: Storage,
  shopKey: string,
  beforeId: string,
): Promise<Manifest | undefined> {
  const ids: string[] = [];
  for await (const object of storage.list(`${shopKey}/`)) {
    const [, id, name, ...rest] = object.key.split('/');
    if (id !== undefined && name === MANIFEST_NAME && rest.length === 0 && isSnapshotId(id) && id < beforeId) {
      ids.push(id);
    }
  }
  for (const id of ids.sort().reverse()) {
    const key = `${shopKey}/${id}/${MANIFEST_NAME}`;
    const manifest = parseManifest(await readObjectText(storage, key), `${storage.location}/${key}`);
    if (manifest.status === 'complete') return manifest;
  }
  return undefined;
}

/**
 * A share of records that vanished since the last complete snapshot large enough to suspect a revoked scope
 * (`read_all_orders` hides orders older than 60 days) or a default filter rather than real deletions.
 */
export const SHRINK_THRESHOLD = 0.5;

export function detectShrink(
  previous: Manifest | undefined,
  current: Manifest['resources'],
  threshold = SHRINK_THRESHOLD,
): NonNullable<Manifest['suspicious_shrink']> {
  if (previous === undefined) return [];
  return Object.entries(current).flatMap(([resource, summary]) => {
    const before = previous.resources[resource as keyof Manifest['resources']]?.exported;
    if (before === undefined || summary === undefined || before === 0) return [];
    return summary.exported < before * (1 - threshold)
      ? [{ resource, previous: before, current: summary.exported }]
      : [];
  });
}
