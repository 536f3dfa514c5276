import { StorageError, type StorageErrorCode } from './storage.js';

/** What the SDK puts on a failed request; only these fields are read, so nothing else can leak into messages. */
interface SdkErrorShape {
  name?: unknown;
  code?: unknown;
  $metadata?: { httpStatusCode?: unknown; requestId?: unknown; attempts?: unknown };
}

const ACCESS_CODES = new Set([
  'AccessDenied',
  'AllAccessDisabled',
  'AccountProblem',
  'CredentialsProviderError',
  'ExpiredToken',
  'InvalidAccessKeyId',
  'InvalidToken',
  'SignatureDoesNotMatch',
  'KMS.AccessDeniedException',
]);
const NOT_FOUND_CODES = new Set(['NoSuchBucket', 'NoSuchKey', 'NotFound', 'NoSuchUpload']);
const EXISTS_CODES = new Set(['PreconditionFailed', 'ConditionalRequestConflict']);

export type S3Action = 'write' | 'read' | 'check' | 'list' | 'delete' | 'abort uploads under';

/** The S3 error code ('AccessDenied', 'SlowDown', 'ECONNRESET', …) or, lacking one, the HTTP status. */
export function s3ErrorCode(error: unknown): string {
  const shape = (error ?? {}) as SdkErrorShape;
  if (typeof shape.code === 'string' && /^E[A-Z]+$/.test(shape.code)) return shape.code;
  if (typeof shape.name === 'string' && shape.name !== 'Error' && shape.name !== 'S3ServiceException') {
    return shape.name;
  }
  const status = httpStatus(error);
  return status === undefined ? 'UnknownError' : `HTTP ${status}`;
}

export function httpStatus(error: unknown): number | undefined {
  const status = (error as SdkErrorShape | undefined)?.$metadata?.httpStatusCode;
  return typeof status === 'number' ? status : undefined;
}

export function isNotFound(error: unknown): boolean {
  return NOT_FOUND_CODES.has(s3ErrorCode(error)) || httpStatus(error) === 404;
}

export function classifyS3Error(error: unknown): StorageErrorCode {
  const code = s3ErrorCode(error);
  const status = httpStatus(error);
  if (ACCESS_CODES.has(code) || status === 401 || status === 403) return 'ERR_STORAGE_ACCESS';
  if (NOT_FOUND_CODES.has(code) || status === 404) return 'ERR_STORAGE_NOT_FOUND';
  if (EXISTS_CODES.has(code) || status === 412) return 'ERR_STORAGE_EXISTS';
  if (code === 'EntityTooLarge' || code === 'QuotaExceeded') return 'ERR_STORAGE_NO_SPACE';
  return 'ERR_STORAGE_IO';
}

const HINTS: Partial<Record<StorageErrorCode, string>> = {
  ERR_STORAGE_ACCESS: 'check the credentials and the uploader policy (deploy/iam-policy.json)',
  ERR_STORAGE_NOT_FOUND: 'check that the bucket exists in this region/endpoint',
};

/**
 * Turns an SDK failure into a StorageError naming the location. The SDK error is not kept as `cause`: it carries the
 * raw XML fields (for InvalidAccessKeyId the access key id itself), which a logger would print. The cause is a
 * summary with the S3 code, HTTP status and request id, which is what a support ticket needs.
 */
export function toStorageError(error: unknown, action: S3Action, where: string): StorageError {
  if (error instanceof StorageError) return error;
  const code = classifyS3Error(error);
  const detail = describe(error);
  const requestId = (error as SdkErrorShape | undefined)?.$metadata?.requestId;
  const hint = HINTS[code];
  const cause = new Error(typeof requestId === 'string' ? `${detail}, request id ${requestId}` : detail);
  cause.name = s3ErrorCode(error);
  return new StorageError(code, `cannot ${action} ${where}: ${detail}${hint ? `; ${hint}` : ''}`, { cause });
}

/**
 * A store's answer is described by its code and status only (its other fields may echo request data). A failure on
 * our side (network, region or credential configuration, part limits) has no answer; its message is ours or the
 * SDK's and says what to fix.
 */
function describe(error: unknown): string {
  const s3Code = s3ErrorCode(error);
  const status = httpStatus(error);
  const attempts = (error as SdkErrorShape | undefined)?.$metadata?.attempts;
  const tries = typeof attempts === 'number' && attempts > 1 ? ` after ${attempts} attempts` : '';
  if (status !== undefined) return `${s3Code === `HTTP ${status}` ? s3Code : `${s3Code} (HTTP ${status})`}${tries}`;
  const message = error instanceof Error ? error.message.slice(0, 300) : '';
  if (message === '') return `${s3Code}${tries}`;
  return `${s3Code === 'UnknownError' || message.includes(s3Code) ? message : `${s3Code}: ${message}`}${tries}`;
}
