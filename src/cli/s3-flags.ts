import type { Argv } from 'yargs';
import type { S3Settings } from '../storage/index.js';
import { UsageError } from './usage-error.js';

export interface S3Flags {
  s3Endpoint?: string;
  s3Region?: string;
  s3ForcePathStyle?: boolean;
  s3Checksum?: string;
  s3Sse?: string;
  s3SseKmsKeyId?: string;
}

export function s3Options<T>(yargs: Argv<T>) {
  return yargs
    .option('s3-endpoint', { type: 'string', describe: 'Endpoint of an S3-compatible store (MinIO, R2, B2, GCS)' })
    .option('s3-region', { type: 'string', describe: 'S3 region (default: from the AWS configuration)' })
    .option('s3-force-path-style', {
      type: 'boolean',
      describe: 'Path-style bucket addressing (MinIO, most self-hosted)',
    })
    .option('s3-checksum', {
      type: 'string',
      choices: ['when-supported', 'when-required'],
      describe: 'Per-request checksums; when-required sends Content-MD5 for stores that reject CRC32 headers',
    })
    .option('s3-sse', { type: 'string', choices: ['aes256', 'aws:kms'], describe: 'Server-side encryption' })
    .option('s3-sse-kms-key-id', { type: 'string', describe: 'KMS key for --s3-sse aws:kms' });
}

/** The S3 settings given by flags (or SHOPSNAP_S3_* variables), layered over a job file's. */
export function s3SettingsFrom(flags: S3Flags, base: S3Settings = {}): S3Settings {
  if (flags.s3SseKmsKeyId !== undefined && flags.s3Sse !== 'aws:kms' && base.sse?.kind !== 'aws:kms') {
    throw new UsageError('--s3-sse-kms-key-id needs --s3-sse aws:kms');
  }
  const sse =
    flags.s3Sse === 'aes256'
      ? ({ kind: 'AES256' } as const)
      : flags.s3Sse === 'aws:kms' || flags.s3SseKmsKeyId !== undefined
        ? ({ kind: 'aws:kms', ...(flags.s3SseKmsKeyId === undefined ? {} : { keyId: flags.s3SseKmsKeyId }) } as const)
        : base.sse;
  return {
    ...base,
    ...(flags.s3Endpoint === undefined ? {} : { endpoint: flags.s3Endpoint }),
    ...(flags.s3Region === undefined ? {} : { region: flags.s3Region }),
    ...(flags.s3ForcePathStyle === undefined ? {} : { forcePathStyle: flags.s3ForcePathStyle }),
    ...(flags.s3Checksum === undefined
      ? {}
      : { checksumCalculation: flags.s3Checksum === 'when-required' ? 'WHEN_REQUIRED' : 'WHEN_SUPPORTED' }),
    ...(sse === undefined ? {} : { sse }),
  };
}
