import { basename, dirname, resolve } from 'node:path';
import { LocalDirStorage } from './local-dir-storage.js';
import { isS3Url, parseS3Url } from './s3-location.js';
import type { S3ClientOptions } from './s3-storage.js';
import { assertSafeKey, type Storage, StorageError } from './storage.js';

export { LocalDirStorage } from './local-dir-storage.js';
export { formatS3Url, isS3Url, parseS3Url, type S3Location } from './s3-location.js';
export type { S3ClientOptions, S3StorageOptions, ServerSideEncryption } from './s3-storage.js';
export * from './storage.js';

/** The S3 settings of a job or the CLI (--s3-endpoint, --s3-region, --s3-force-path-style, …). */
export type S3Settings = S3ClientOptions;

/**
 * The storage behind `--out`: an S3 bucket for 's3://bucket/prefix', else a local directory. The AWS SDK is loaded
 * only for a bucket: it costs about 0.2 s of CPU at every start of a worker.
 */
export async function createStorage(out: string, s3: S3Settings = {}): Promise<Storage> {
  if (!isS3Url(out)) return new LocalDirStorage(out);
  const { S3Storage } = await import('./s3-storage.js');
  return new S3Storage({ ...parseS3Url(out), ...s3 });
}

/**
 * Splits the location of one snapshot ('/data/snapshots/shop/20261122T…', 's3://bucket/shops/shop/20261122T…') into a
 * storage rooted at its parent and the snapshot's own key, as verify needs them.
 */
export async function openSnapshotLocation(
  location: string,
  s3: S3Settings = {},
): Promise<{ storage: Storage; prefix: string }> {
  if (isS3Url(location)) {
    const { bucket, prefix: path } = parseS3Url(location);
    const cut = path.lastIndexOf('/');
    const prefix = path.slice(cut + 1);
    if (prefix === '') {
      throw new StorageError('ERR_STORAGE_KEY', `${location} names a bucket, not a snapshot (want s3://bucket/…/id)`);
    }
    const { S3Storage } = await import('./s3-storage.js');
    return { storage: new S3Storage({ bucket, prefix: cut < 0 ? '' : path.slice(0, cut), ...s3 }), prefix };
  }
  const folder = resolve(location);
  const prefix = basename(folder);
  assertSafeKey(prefix);
  return { storage: new LocalDirStorage(dirname(folder)), prefix };
}
