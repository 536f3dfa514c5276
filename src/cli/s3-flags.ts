import type { S3Settings } from '../storage/index.js';
import { type FlagValues, flag } from './flags.js';
import { UsageError } from './usage-error.js';

const GROUP = 'S3-compatible storage:';

/** What reading a bucket needs. */
export const S3_READ_FLAGS = {
  s3Endpoint: flag.string({
    describe: 'Endpoint of an S3-compatible store (MinIO, R2, B2, GCS)',
    env: true,
    group: GROUP,
  }),
  s3Region: flag.string({ describe: 'S3 region (default: from the AWS configuration)', env: true, group: GROUP }),
  s3ForcePathStyle: flag.boolean({
    describe: 'Path-style bucket addressing (MinIO, most self-hosted stores)',
    env: true,
    group: GROUP,
  }),
  s3Checksum: flag.string({
    describe: 'Checksums on requests and responses; when-required sends Content-MD5 to stores that reject CRC32',
    env: true,
    choices: ['when-supported', 'when-required'],
    group: GROUP,
  }),
};

/** What writing one needs besides: encryption of the objects written. */
export const S3_WRITE_FLAGS = {
  ...S3_READ_FLAGS,
  s3Sse: flag.string({
    describe: 'Server-side encryption of the objects written',
    env: true,
    choices: ['aes256', 'aws:kms'],
    group: GROUP,
  }),
  s3SseKmsKeyId: flag.string({ describe: 'KMS key for --s3-sse aws:kms', env: true, group: GROUP }),
};

export type S3Flags = Partial<FlagValues<typeof S3_WRITE_FLAGS>>;

/** The S3 settings given by flags (or their SHOPSNAP_S3_* variables), layered over a job file's. */
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
