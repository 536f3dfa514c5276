import { resolve } from 'node:path';
import { createStorage, isS3Url, parseS3Url, type S3Settings, type Storage, StorageError } from '../storage/index.js';
import { readObjectText } from '../storage/storage.js';
import { MANIFEST_NAME, type Manifest, parseManifest } from './manifest.js';
import { isSnapshotId } from './snapshot-id.js';

/**
 * What a destination holds, found through manifests (never through a bare listing of folders, see the README):
 * every `<shop>/<snapshot_id>/` with its manifest, or without one (an unfinished run's committed parts, which are no
 * snapshot), or with one that cannot be read (damage).
 */
export interface SnapshotEntry {
  shop: string;
  id: string;
  /** `<shop>/<id>`: the key prefix of the snapshot's files in the catalog's storage. */
  key: string;
  state: 'complete' | 'incomplete' | 'unfinished' | 'damaged';
  /** Present for complete and incomplete snapshots. */
  manifest?: Manifest;
  /** Why a damaged snapshot's manifest cannot be read. */
  problem?: string;
  /** Objects under the snapshot's key and their bytes, manifest included. */
  objects: number;
  bytes: number;
}

/** What a location names: a whole destination (shop folders below it), one shop's folder, or one snapshot. */
export type CatalogScope =
  | { kind: 'destination' }
  | { kind: 'shop'; shop: string }
  | { kind: 'snapshot'; shop: string; id: string };

export interface Catalog {
  /** Rooted at the destination: keys are `<shop>/<id>/…` whatever the scope. */
  storage: Storage;
  scope: CatalogScope;
}

/**
 * Opens what a user names on the command line: `./snapshots`, `./snapshots/<shop>`, `./snapshots/<shop>/<id>` (or its
 * `manifest.json`), and the same under `s3://bucket/prefix`. A snapshot is recognised by its id, a shop folder by the
 * snapshot ids directly below it; anything else is taken as a destination.
 */
export async function openCatalog(location: string, s3: S3Settings = {}): Promise<Catalog> {
  const segments = locationSegments(location);
  if (segments.at(-1) === MANIFEST_NAME) segments.pop();
  const last = segments.at(-1);
  const parent = segments.at(-2);
  if (last !== undefined && parent !== undefined && isSnapshotId(last)) {
    const storage = await createStorage(joinLocation(location, segments.slice(0, -2)), s3);
    return { storage, scope: { kind: 'snapshot', shop: parent, id: last } };
  }
  const here = await createStorage(joinLocation(location, segments), s3);
  if (last !== undefined && (await holdsSnapshotIds(here))) {
    const storage = await createStorage(joinLocation(location, segments.slice(0, -1)), s3);
    return { storage, scope: { kind: 'shop', shop: last } };
  }
  return { storage: here, scope: { kind: 'destination' } };
}

/** Where the catalog's scope is: the destination, `<destination>/<shop>` or `<destination>/<shop>/<id>`. */
export function catalogLocation(catalog: Catalog): string {
  const { storage, scope } = catalog;
  if (scope.kind === 'destination') return storage.location;
  return `${storage.location}/${scope.shop}${scope.kind === 'snapshot' ? `/${scope.id}` : ''}`;
}

/** Every snapshot under the catalog's scope, ordered by shop and then by id (oldest first). */
export async function listSnapshots(catalog: Catalog): Promise<SnapshotEntry[]> {
  const { storage, scope } = catalog;
  const prefix = scope.kind === 'destination' ? '' : `${scope.shop}/${scope.kind === 'snapshot' ? `${scope.id}/` : ''}`;
  const found = new Map<string, { shop: string; id: string; objects: number; bytes: number; manifest: boolean }>();
  for await (const object of storage.list(prefix)) {
    const [shop, id, ...rest] = object.key.split('/');
    if (shop === undefined || id === undefined || rest.length === 0 || !isSnapshotId(id)) continue;
    const key = `${shop}/${id}`;
    const entry = found.get(key) ?? { shop, id, objects: 0, bytes: 0, manifest: false };
    entry.objects++;
    entry.bytes += object.bytes;
    if (rest.length === 1 && rest[0] === MANIFEST_NAME) entry.manifest = true;
    found.set(key, entry);
  }
  const entries: SnapshotEntry[] = [];
  for (const [key, { shop, id, objects, bytes, manifest }] of [...found].sort(([a], [b]) => (a < b ? -1 : 1))) {
    entries.push({ shop, id, key, objects, bytes, ...(manifest ? await readManifest(storage, key) : UNFINISHED) });
  }
  return entries;
}

/** The complete snapshots among `entries`, in the same order. */
export function completeSnapshots(entries: readonly SnapshotEntry[]): Array<SnapshotEntry & { manifest: Manifest }> {
  return entries.filter((entry): entry is SnapshotEntry & { manifest: Manifest } => entry.state === 'complete');
}

const UNFINISHED = { state: 'unfinished' } as const;

async function readManifest(
  storage: Storage,
  key: string,
): Promise<Pick<SnapshotEntry, 'state' | 'manifest' | 'problem'>> {
  const manifestKey = `${key}/${MANIFEST_NAME}`;
  try {
    const manifest = parseManifest(await readObjectText(storage, manifestKey), `${storage.location}/${manifestKey}`);
    return { state: manifest.status, manifest };
  } catch (error) {
    if (error instanceof StorageError && error.code !== 'ERR_STORAGE_NOT_FOUND') throw error;
    return { state: 'damaged', problem: (error as Error).message };
  }
}

/** Whether the folders below the storage's root are snapshots (a shop's folder) rather than shops: the first says. */
async function holdsSnapshotIds(storage: Storage): Promise<boolean> {
  for await (const object of storage.list('')) {
    const [first, ...rest] = object.key.split('/');
    if (first !== undefined && rest.length > 0 && !first.startsWith('.')) return isSnapshotId(first);
  }
  return false;
}

/** The path segments of a location below its root: the S3 prefix's, or the absolute local path's. */
function locationSegments(location: string): string[] {
  const path = isS3Url(location) ? parseS3Url(location).prefix : resolve(location);
  return path.split('/').filter((segment) => segment !== '');
}

function joinLocation(location: string, segments: readonly string[]): string {
  if (isS3Url(location)) {
    const { bucket } = parseS3Url(location);
    return segments.length === 0 ? `s3://${bucket}` : `s3://${bucket}/${segments.join('/')}`;
  }
  return `/${segments.join('/')}`;
}
