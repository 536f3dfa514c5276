import { assertSafeKey, StorageError } from './storage.js';

/** A bucket and a key prefix inside it; `prefix` has no leading or trailing '/' and may be empty. */
export interface S3Location {
  bucket: string;
  prefix: string;
}

// S3's bucket naming rules (3-63 characters, lowercase letters, digits, dots, hyphens; letter or digit at both ends).
const BUCKET_NAME = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

export function isS3Url(text: string): boolean {
  return text.startsWith('s3://');
}

/** Parses 's3://bucket/some/prefix' (a trailing '/' is allowed); the prefix obeys the same rules as storage keys. */
export function parseS3Url(url: string): S3Location {
  const match = /^s3:\/\/([^/]*)(?:\/(.*))?$/.exec(url);
  const bucket = match?.[1] ?? '';
  if (!match || !BUCKET_NAME.test(bucket) || bucket.includes('..')) {
    throw new StorageError('ERR_STORAGE_KEY', `not an S3 location (want s3://bucket/prefix): ${JSON.stringify(url)}`);
  }
  const prefix = (match[2] ?? '').replace(/\/$/, '');
  if (prefix !== '') assertSafeKey(prefix);
  return { bucket, prefix };
}

export function formatS3Url({ bucket, prefix }: S3Location): string {
  return prefix === '' ? `s3://${bucket}` : `s3://${bucket}/${prefix}`;
}
