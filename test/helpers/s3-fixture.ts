import type { S3ClientOptions } from '../../src/storage/s3-storage.js';
import { S3RVER_CREDENTIALS } from './s3rver-process.js';

export const BUCKET = 'shopsnap-test';

/** Client settings for s3rver: it stores aws-chunked framing inside objects unless checksums are WHEN_REQUIRED. */
export function s3rverOptions(endpoint: string, overrides: S3ClientOptions = {}): S3ClientOptions {
  return {
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    checksumCalculation: 'WHEN_REQUIRED',
    credentials: S3RVER_CREDENTIALS,
    maxAttempts: 4,
    ...overrides,
  };
}
