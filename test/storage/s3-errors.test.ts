import { describe, expect, it } from 'vitest';
import { classifyS3Error, s3ErrorCode, toStorageError } from '../../src/storage/s3-errors.js';
import { StorageError } from '../../src/storage/storage.js';

/** Shaped like the SDK's service exceptions: name = S3 code, $metadata with status and attempts, raw XML fields. */
function sdkError(name: string, status?: number, extra: Record<string, unknown> = {}): Error {
  const error = new Error('server message');
  error.name = name;
  return Object.assign(
    error,
    status === undefined ? {} : { $metadata: { httpStatusCode: status, attempts: 1 } },
    extra,
  );
}

describe('classifyS3Error', () => {
  it.each([
    ['AccessDenied', sdkError('AccessDenied', 403), 'ERR_STORAGE_ACCESS'],
    ['InvalidAccessKeyId', sdkError('InvalidAccessKeyId', 403), 'ERR_STORAGE_ACCESS'],
    ['SignatureDoesNotMatch', sdkError('SignatureDoesNotMatch', 403), 'ERR_STORAGE_ACCESS'],
    ['ExpiredToken', sdkError('ExpiredToken', 400), 'ERR_STORAGE_ACCESS'],
    ['no credentials found', sdkError('CredentialsProviderError'), 'ERR_STORAGE_ACCESS'],
    ['a bare 403 (HEAD has no body)', sdkError('403', 403), 'ERR_STORAGE_ACCESS'],
    ['NoSuchBucket', sdkError('NoSuchBucket', 404), 'ERR_STORAGE_NOT_FOUND'],
    ['NoSuchKey', sdkError('NoSuchKey', 404), 'ERR_STORAGE_NOT_FOUND'],
    ['PreconditionFailed', sdkError('PreconditionFailed', 412), 'ERR_STORAGE_EXISTS'],
    ['ConditionalRequestConflict', sdkError('ConditionalRequestConflict', 409), 'ERR_STORAGE_EXISTS'],
    ['SlowDown, retries spent', sdkError('SlowDown', 503), 'ERR_STORAGE_IO'],
    ['InternalError, retries spent', sdkError('InternalError', 500), 'ERR_STORAGE_IO'],
    ['a reset', Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }), 'ERR_STORAGE_IO'],
    ['EntityTooLarge', sdkError('EntityTooLarge', 400), 'ERR_STORAGE_NO_SPACE'],
  ])('%s', (_name, error, expected) => {
    expect(classifyS3Error(error)).toBe(expected);
  });
});

describe('s3ErrorCode', () => {
  it.each([
    [sdkError('SlowDown', 503), 'SlowDown'],
    [Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }), 'ECONNRESET'],
    [Object.assign(new Error('x'), { $metadata: { httpStatusCode: 502 } }), 'HTTP 502'],
    [new Error('x'), 'UnknownError'],
    [undefined, 'UnknownError'],
  ])('%#', (error, expected) => {
    expect(s3ErrorCode(error)).toBe(expected);
  });
});

describe('toStorageError', () => {
  it('names the action, the object, the S3 code, status and attempts, and keeps no raw SDK fields', () => {
    const raw = sdkError('InvalidAccessKeyId', 403, {
      AWSAccessKeyId: 'AKIACANARY',
      $metadata: { httpStatusCode: 403, attempts: 1, requestId: 'R1' },
    });
    const error = toStorageError(raw, 'write', 's3://b/p/k');
    expect(error).toBeInstanceOf(StorageError);
    expect(error.code).toBe('ERR_STORAGE_ACCESS');
    expect(error.message).toBe(
      'cannot write s3://b/p/k: InvalidAccessKeyId (HTTP 403); check the credentials and the uploader policy (deploy/iam-policy.json)',
    );
    expect(error.cause).toMatchObject({
      name: 'InvalidAccessKeyId',
      message: 'InvalidAccessKeyId (HTTP 403), request id R1',
    });
    expect(JSON.stringify(error.cause, Object.getOwnPropertyNames(error.cause))).not.toContain('AKIACANARY');
  });

  it('reports how many attempts were spent', () => {
    const raw = sdkError('SlowDown', 503, { $metadata: { httpStatusCode: 503, attempts: 6 } });
    expect(toStorageError(raw, 'write', 's3://b/k').message).toBe(
      'cannot write s3://b/k: SlowDown (HTTP 503) after 6 attempts',
    );
  });

  it.each([
    [new Error('Region is missing'), 'cannot list s3://b/k: Region is missing'],
    [
      Object.assign(new Error('socket hang up'), { code: 'ECONNRESET', $metadata: { attempts: 6 } }),
      'cannot list s3://b/k: ECONNRESET: socket hang up after 6 attempts',
    ],
    [
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' }),
      'cannot list s3://b/k: connect ECONNREFUSED 127.0.0.1:9',
    ],
    [
      Object.assign(new Error('Could not load credentials from any providers'), { name: 'CredentialsProviderError' }),
      'cannot list s3://b/k: CredentialsProviderError: Could not load credentials from any providers; check the ' +
        'credentials and the uploader policy (deploy/iam-policy.json)',
    ],
  ])('a failure without an answer from the store keeps its own message: %s', (raw, message) => {
    expect(toStorageError(raw, 'list', 's3://b/k').message).toBe(message);
  });

  it('passes a StorageError through unchanged', () => {
    const original = new StorageError('ERR_STORAGE_INTEGRITY', 'x');
    expect(toStorageError(original, 'write', 's3://b/k')).toBe(original);
  });
});
