import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import PQueue from 'p-queue';
import { hashFile } from '../local-file.js';
import type { ManifestFile } from '../snapshot/manifest.js';
import { downloadObject, LocalDirStorage, type Storage, StorageError } from '../storage/index.js';
import type { SelectedSnapshot } from './selection.js';

/** Downloads from a bucket at a time. */
const DOWNLOADS_AT_ONCE = 4;

/** The Parquet files of one table in one snapshot, as paths DuckDB reads. */
export type TableFiles = Map<string, string[]>;

/**
 * Local paths of the Parquet files the manifests of `snapshots` list for `tables`, by snapshot key and table. In a
 * local destination DuckDB reads them where they are. From a bucket they are downloaded into `scratch` (DuckDB's S3
 * support is an extension it would fetch from the internet), each checked against its manifest's sha256.
 */
export async function parquetCopies(
  storage: Storage,
  snapshots: readonly SelectedSnapshot[],
  tables: ReadonlySet<string>,
  scratch: string,
): Promise<Map<string, TableFiles>> {
  const local = storage instanceof LocalDirStorage;
  const queue = new PQueue({ concurrency: DOWNLOADS_AT_ONCE });
  const copies = new Map<string, TableFiles>();
  const downloads: Promise<void>[] = [];
  for (const snapshot of snapshots) {
    const byTable: TableFiles = new Map();
    for (const file of snapshot.manifest.files) {
      if (file.format !== 'parquet' || file.table === undefined || !tables.has(file.table)) continue;
      const key = `${snapshot.key}/${file.path}`;
      const path = local ? join(storage.location, key) : join(scratch, key);
      byTable.set(file.table, [...(byTable.get(file.table) ?? []), path]);
      if (!local) downloads.push(queue.add(() => download(storage, key, file, path)));
    }
    copies.set(snapshot.key, byTable);
  }
  await Promise.all(downloads);
  return copies;
}

async function download(storage: Storage, key: string, file: ManifestFile, path: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await downloadObject(storage, key, path);
  const { sha256 } = await hashFile(path);
  if (sha256 !== file.sha256) {
    throw new StorageError(
      'ERR_STORAGE_INTEGRITY',
      `${storage.location}/${key} is not what its manifest lists (sha256 ${sha256}, the manifest says ${file.sha256}); shopsnap verify says more`,
    );
  }
}
