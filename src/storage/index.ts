import { LocalDirStorage } from './local-dir-storage.js';
import { isS3Url, parseS3Url } from './s3-location.js';
import type { S3ClientOptions } from './s3-storage.js';
import type { Storage } from './storage.js';

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
