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

/** What the CLI needs to talk to s3rver: its credentials in the environment, and the flags for its quirks. */
export const S3RVER_CLI_ENV = {
  AWS_ACCESS_KEY_ID: S3RVER_CREDENTIALS.accessKeyId,
  AWS_SECRET_ACCESS_KEY: S3RVER_CREDENTIALS.secretAccessKey,
  AWS_REGION: 'us-east-1',
};

export function s3rverCliFlags(endpoint: string): string[] {
  return ['--s3-endpoint', endpoint, '--s3-force-path-style', '--s3-checksum', 'when-required'];
}
