import { createHash } from 'node:crypto';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { type JsonObject, parseJson } from '../shopify/json.js';
import { RESOURCES, type ResourceName } from '../shopify/resources.js';
import {
  type Catalog,
  catalogLocation,
  completeSnapshots,
  listSnapshots,
  openCatalog,
  type SnapshotEntry,
} from '../snapshot/catalog.js';
import { type Manifest, type ManifestFile, whyIncomplete } from '../snapshot/manifest.js';
import type { S3Settings, Storage } from '../storage/index.js';
import { RestoreError } from './errors.js';

/** One record of the snapshot as the shop served it: its exact decimal id and its lossless parse. */
export interface SourceRecord {
  id: string;
  record: JsonObject;
}

/** The snapshot a restore reads: its raw archive, record by record, per resource. */
export interface RestoreSource {
  /** Where the snapshot is: `<destination>/<shop>/<id>`. */
  location: string;
  /** The shop's folder name in the destination (its key: `my-shop.myshopify.com`, `127.0.0.1-8080`). */
  shop: string;
  snapshotId: string;
  manifest: Manifest;
  /** The resources the snapshot holds, in restore order. */
  resources: ResourceName[];
  /** Why the snapshot is incomplete, when its manifest says so; a restore says it in its plan. */
  incomplete: string | undefined;
  /** Records of the resource the snapshot holds. */
  count(resource: ResourceName): number;
  /**
   * Every record of the resource, streamed from the raw archive part by part (each part's sha256 checked against the
   * manifest once read: a damaged part fails the read, after the records before the damage).
   */
  records(resource: ResourceName): AsyncIterable<SourceRecord>;
}

/**
 * Opens what a user names as the snapshot to restore: a snapshot (its folder or manifest.json, whatever its status
 * but unfinished or damaged), or a shop folder (its newest complete snapshot), locally or in S3.
 */
export async function openRestoreSource(location: string, s3: S3Settings = {}): Promise<RestoreSource> {
  const catalog = await openCatalog(location, s3);
  if (catalog.scope.kind === 'destination') {
    throw new RestoreError(
      'ERR_USAGE',
      `name one snapshot or a shop's folder to restore, not a whole destination: ${catalogLocation(catalog)}`,
    );
  }
  const entry = await chosenSnapshot(catalog);
  const manifest = entry.manifest;
  const rawFiles = (resource: ResourceName) =>
    manifest.files
      .filter((file) => file.format === 'raw' && file.table === resource)
      .sort((a, b) => (a.path < b.path ? -1 : 1));
  const resources = RESOURCES.filter((resource) => manifest.resources[resource] !== undefined);
  const snapshotLocation = `${catalog.storage.location}/${entry.key}`;
  const withoutArchive = resources.filter(
    (resource) => rawFiles(resource).length === 0 && (manifest.resources[resource]?.exported ?? 0) > 0,
  );
  if (withoutArchive.length > 0) {
    throw new RestoreError(
      'ERR_RESTORE_SOURCE',
      `${snapshotLocation} has no raw archive of ${withoutArchive.join(', ')} (it was written with --formats without raw); only the raw archive holds records whole enough to restore`,
    );
  }
  return {
    location: snapshotLocation,
    shop: entry.shop,
    snapshotId: entry.id,
    manifest,
    resources,
    incomplete: manifest.status === 'incomplete' ? whyIncomplete(manifest) : undefined,
    count: (resource) => manifest.resources[resource]?.exported ?? 0,
    records: (resource) => readArchive(catalog.storage, entry.key, rawFiles(resource)),
  };
}

async function chosenSnapshot(catalog: Catalog): Promise<SnapshotEntry & { manifest: Manifest }> {
  const entries = await listSnapshots(catalog);
  const where = catalogLocation(catalog);
  if (catalog.scope.kind === 'shop') {
    const newest = completeSnapshots(entries).at(-1);
    if (newest === undefined) throw new RestoreError('ERR_RESTORE_SOURCE', `no complete snapshot under ${where}`);
    return newest;
  }
  const entry = entries[0];
  if (entry === undefined) throw new RestoreError('ERR_RESTORE_SOURCE', `no snapshot at ${where}`);
  if (entry.manifest === undefined) {
    throw new RestoreError(
      'ERR_RESTORE_SOURCE',
      entry.state === 'damaged'
        ? `${entry.problem}; the snapshot cannot be restored`
        : `${where} has no manifest.json: its run did not finish, so it is not a snapshot that can be restored`,
    );
  }
  return entry as SnapshotEntry & { manifest: Manifest };
}

async function* readArchive(
  storage: Storage,
  key: string,
  files: readonly ManifestFile[],
): AsyncIterable<SourceRecord> {
  for (const file of files) yield* readPart(storage, `${key}/${file.path}`, file);
}

/**
 * The records of one raw part, in order. The compressed bytes are hashed on their way in; once the part is read, a
 * hash other than the manifest's fails the read: the snapshot is damaged, and a restore must not go on from it.
 */
async function* readPart(storage: Storage, key: string, file: ManifestFile): AsyncIterable<SourceRecord> {
  const hash = createHash('sha256');
  const hashing = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      done(null, chunk);
    },
  });
  const gunzip = createGunzip();
  const flowing = pipeline(await storage.get(key), hashing, gunzip);
  // A failure ends the iteration below with the same error; a reader that stops early ends the pipeline.
  flowing.catch(() => undefined);
  let pending: Buffer[] = [];
  let number = 0;
  try {
    for await (const chunk of gunzip as AsyncIterable<Buffer>) {
      let from = 0;
      for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, from)) {
        const line = Buffer.concat([...pending, chunk.subarray(from, at)]);
        pending = [];
        from = at + 1;
        yield recordOf(line, key, ++number);
      }
      if (from < chunk.length) pending.push(chunk.subarray(from));
    }
    await flowing;
  } catch (error) {
    if (error instanceof RestoreError) throw error;
    throw new RestoreError(
      'ERR_RESTORE_SOURCE',
      `cannot read ${storage.location}/${key}: ${(error as Error).message}`,
      {
        cause: error,
      },
    );
  }
  if (pending.length > 0) yield recordOf(Buffer.concat(pending), key, ++number);
  const sha256 = hash.digest('hex');
  if (sha256 !== file.sha256) {
    throw new RestoreError(
      'ERR_RESTORE_SOURCE',
      `${storage.location}/${key} has sha256 ${sha256}, but the manifest says ${file.sha256}: the snapshot is damaged (shopsnap verify names every damaged file)`,
    );
  }
}

function recordOf(line: Buffer, key: string, number: number): SourceRecord {
  let record: unknown;
  try {
    record = parseJson(line.toString('utf8'));
  } catch (error) {
    throw new RestoreError('ERR_RESTORE_SOURCE', `line ${number} of ${key} is not JSON: ${(error as Error).message}`);
  }
  const id = (record as JsonObject | null)?.id;
  if (typeof id !== 'bigint' && !(typeof id === 'number' && Number.isSafeInteger(id))) {
    throw new RestoreError('ERR_RESTORE_SOURCE', `line ${number} of ${key} is not a record with an integer id`);
  }
  return { id: String(id), record: record as JsonObject };
}
