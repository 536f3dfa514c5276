import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { PassThrough, pipeline, type Readable, Transform, type TransformCallback } from 'node:stream';
import type { PutObjectCommandInput, S3ClientConfig } from '@aws-sdk/client-s3';
import { requireCommonJs } from '../commonjs.js';
import { addContentMd5 } from './s3-content-md5.js';
import { classifyS3Error, httpStatus, isNotFound, type S3Action, s3ErrorCode, toStorageError } from './s3-errors.js';
import { formatS3Url, type S3Location } from './s3-location.js';
import { partSizeFor } from './s3-part-size.js';
import {
  assertSafeKey,
  type ByteRange,
  type PutOptions,
  type Storage,
  StorageError,
  type StoredObject,
} from './storage.js';

const {
  AbortMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  S3Client,
} = requireCommonJs('@aws-sdk/client-s3') as typeof import('@aws-sdk/client-s3');
type S3Client = InstanceType<typeof S3Client>;
const { Upload } = requireCommonJs('@aws-sdk/lib-storage') as typeof import('@aws-sdk/lib-storage');

export type ServerSideEncryption = { kind: 'AES256' } | { kind: 'aws:kms'; keyId?: string };

/** Everything but the location; the CLI flags --s3-endpoint, --s3-region, --s3-force-path-style map onto these. */
export interface S3ClientOptions {
  /** For S3-compatible stores (MinIO, R2, B2, GCS): 'https://…'. Unset: AWS, endpoint from region. */
  endpoint?: string;
  /** Unset: the standard AWS chain (AWS_REGION, profile). */
  region?: string;
  forcePathStyle?: boolean;
  /**
   * 'WHEN_SUPPORTED' (SDK default): CRC32 on every upload request. 'WHEN_REQUIRED': for stores that reject those
   * headers; Content-MD5 is sent instead, so each request body is still checked by the store. Unset: the AWS chain
   * (AWS_REQUEST_CHECKSUM_CALCULATION, profile), then 'WHEN_SUPPORTED'. Also sets the response validation mode.
   */
  checksumCalculation?: 'WHEN_SUPPORTED' | 'WHEN_REQUIRED';
  sse?: ServerSideEncryption;
  /** Unset: the standard AWS chain (env, profiles, SSO, IAM roles). */
  credentials?: S3ClientConfig['credentials'];
  /** Attempts per request, including the first (SDK standard retry mode: exponential backoff with jitter). */
  maxAttempts?: number;
  /** Parts in flight per upload; memory is about queueSize × part size per file. */
  queueSize?: number;
  /** A connection idle (nothing sent or received) for this long fails the request, which is then retried. */
  idleTimeoutMs?: number;
}

export interface S3StorageOptions extends S3ClientOptions, S3Location {}

const DEFAULT_MAX_ATTEMPTS = 6;
const DEFAULT_QUEUE_SIZE = 4;
const DEFAULT_IDLE_TIMEOUT_MS = 120_000;
const CONNECT_TIMEOUT_MS = 10_000;
const META_SHA256 = 'sha256';
/** Answers to a retried request that mean an earlier attempt of it may have succeeded. */
const LANDED_CODES = new Set(['PreconditionFailed', 'ConditionalRequestConflict', 'NoSuchUpload']);

/**
 * Storage in an S3 bucket under a prefix. Every upload goes through lib-storage (one PutObject up to the part size,
 * multipart above it), carries our whole-file sha256 as x-amz-meta-sha256, and is confirmed by a HEAD comparing size
 * and that metadata. Request bodies are always Buffers, so the SDK's retries (its standard strategy is the only retry
 * layer) re-send the same bytes. A failed multipart upload is aborted; abortIncompleteUploads() sweeps what a killed
 * run left behind.
 */
export class S3Storage implements Storage {
  readonly location: string;
  readonly client: S3Client;
  readonly #bucket: string;
  readonly #root: string;
  readonly #sse: Pick<PutObjectCommandInput, 'ServerSideEncryption' | 'SSEKMSKeyId'>;
  readonly #queueSize: number;

  constructor(options: S3StorageOptions) {
    this.#bucket = options.bucket;
    this.#root = options.prefix === '' ? '' : `${options.prefix}/`;
    this.location = formatS3Url(options);
    this.#sse = sseParams(options.sse);
    this.#queueSize = options.queueSize ?? DEFAULT_QUEUE_SIZE;
    const checksums = options.checksumCalculation;
    this.client = new S3Client({
      ...(options.endpoint !== undefined && { endpoint: options.endpoint }),
      ...(options.region !== undefined && { region: options.region }),
      ...(options.credentials !== undefined && { credentials: options.credentials }),
      ...(checksums !== undefined && { requestChecksumCalculation: checksums, responseChecksumValidation: checksums }),
      forcePathStyle: options.forcePathStyle ?? false,
      retryMode: 'standard',
      maxAttempts: options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
      // An idle timeout, not a total one: a large part on a slow link may take long but keeps moving.
      requestHandler: {
        socketTimeout: options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS,
        connectionTimeout: CONNECT_TIMEOUT_MS,
      },
    });
    addContentMd5(this.client);
  }

  async putFile(key: string, localPath: string, options: PutOptions): Promise<StoredObject> {
    const objectKey = this.#objectKey(key);
    return this.#guard('write', key, async () => {
      const { size } = await stat(localPath);
      // The hash is checked as the file streams out; a mismatch fails the stream before the last part is sent, so
      // a wrong object is never completed.
      const check = new Sha256Check(options.sha256, () => this.#describe(key));
      const body = pipeline(createReadStream(localPath), check, () => {});
      await this.#upload(key, objectKey, body, size, options);
      return this.#verify(key, size, options.sha256);
    });
  }

  async putBytes(key: string, body: Uint8Array, options: PutOptions): Promise<StoredObject> {
    const objectKey = this.#objectKey(key);
    return this.#guard('write', key, async () => {
      const sha256 = createHash('sha256').update(body).digest('hex');
      if (sha256 !== options.sha256) throw this.#integrity(key, `content has sha256 ${sha256}`, options.sha256);
      const buffer = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
      await this.#upload(key, objectKey, buffer, body.byteLength, options);
      return this.#verify(key, body.byteLength, sha256);
    });
  }

  async head(key: string): Promise<StoredObject | undefined> {
    const objectKey = this.#objectKey(key);
    return this.#guard('check', key, async () => {
      try {
        const out = await this.client.send(new HeadObjectCommand({ Bucket: this.#bucket, Key: objectKey }));
        const sha256 = out.Metadata?.[META_SHA256];
        return { key, bytes: out.ContentLength ?? 0, ...(sha256 !== undefined && { sha256 }) };
      } catch (error) {
        if (isNotFound(error)) return undefined;
        throw error;
      }
    });
  }

  async get(key: string): Promise<Readable> {
    const objectKey = this.#objectKey(key);
    const body = await this.#guard('read', key, async () => {
      const out = await this.client.send(new GetObjectCommand({ Bucket: this.#bucket, Key: objectKey }));
      return out.Body as Readable;
    });
    // Errors while the body streams (reset, checksum mismatch) arrive as StorageErrors like every other failure.
    const out = new PassThrough();
    body.on('error', (error) => out.destroy(toStorageError(error, 'read', this.#describe(key))));
    return body.pipe(out);
  }

  async readRange(key: string, range: ByteRange): Promise<Buffer> {
    const objectKey = this.#objectKey(key);
    if (range.end <= range.start) return Buffer.alloc(0);
    return this.#guard('read', key, async () => {
      try {
        const out = await this.client.send(
          new GetObjectCommand({
            Bucket: this.#bucket,
            Key: objectKey,
            Range: `bytes=${range.start}-${range.end - 1}`,
          }),
        );
        const bytes = (await out.Body?.transformToByteArray()) ?? new Uint8Array();
        // An answer may hold more than asked: a store that ignores Range sends the whole object (no Content-Range),
        // and s3rver answers `bytes=0-0` with every byte. The bytes asked for are cut from what came.
        const from = Number(/^bytes (\d+)-/.exec(out.ContentRange ?? '')?.[1] ?? 0);
        if (from > range.start) throw new Error(`asked for bytes from ${range.start}, got ${out.ContentRange}`);
        const skip = range.start - from;
        return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).subarray(
          skip,
          skip + range.end - range.start,
        );
      } catch (error) {
        // S3 answers a range that starts past the object's end with 416: that object holds none of its bytes.
        if (httpStatus(error) === 416) return Buffer.alloc(0);
        throw error;
      }
    });
  }

  async *list(prefix: string): AsyncIterable<StoredObject> {
    const listPrefix = this.#root + this.#checkPrefix(prefix);
    let token: string | undefined;
    do {
      const page = await this.#guard('list', prefix, () =>
        this.client.send(
          new ListObjectsV2Command({ Bucket: this.#bucket, Prefix: listPrefix, ContinuationToken: token }),
        ),
      );
      for (const item of page.Contents ?? []) {
        if (item.Key?.startsWith(this.#root)) {
          yield { key: item.Key.slice(this.#root.length), bytes: item.Size ?? 0 };
        }
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token !== undefined);
  }

  /** The uploader policy (deploy/iam-policy.json) allows this for lease.json only; elsewhere: ERR_STORAGE_ACCESS. */
  async delete(key: string): Promise<void> {
    const objectKey = this.#objectKey(key);
    await this.#guard('delete', key, () =>
      this.client.send(new DeleteObjectCommand({ Bucket: this.#bucket, Key: objectKey })),
    );
  }

  /**
   * Aborts the incomplete multipart uploads under `prefix` (relative to the root), e.g. those of a run that was
   * killed; parts are billed until then. `initiatedBefore` spares uploads of a run still in progress.
   * Returns how many were aborted: 0 on a store that cannot list them (501). The lifecycle rule in
   * deploy/s3-lifecycle.json is the backstop.
   */
  async abortIncompleteUploads(prefix: string, options: { initiatedBefore?: Date } = {}): Promise<number> {
    const listPrefix = this.#root + this.#checkPrefix(prefix);
    let aborted = 0;
    let keyMarker: string | undefined;
    let uploadIdMarker: string | undefined;
    do {
      const page = await this.#guard('abort uploads under', prefix, () =>
        this.client
          .send(
            new ListMultipartUploadsCommand({
              Bucket: this.#bucket,
              Prefix: listPrefix,
              KeyMarker: keyMarker,
              UploadIdMarker: uploadIdMarker,
            }),
          )
          .catch((error: unknown) => {
            // A store without this call (s3rver, some S3-compatibles) cannot show us a killed run's uploads. The sweep
            // is housekeeping and must not fail the backup it precedes; the store's own expiry has to do it there.
            if (httpStatus(error) === 501) return undefined;
            throw error;
          }),
      );
      if (page === undefined) return aborted;
      for (const upload of page.Uploads ?? []) {
        const { Key, UploadId, Initiated } = upload;
        if (Key === undefined || UploadId === undefined) continue;
        if (options.initiatedBefore && Initiated && Initiated >= options.initiatedBefore) continue;
        await this.#guard('abort uploads under', Key.slice(this.#root.length), () =>
          this.client
            .send(new AbortMultipartUploadCommand({ Bucket: this.#bucket, Key, UploadId }))
            .catch((error: unknown) => {
              if (!isNotFound(error)) throw error;
            }),
        );
        aborted += 1;
      }
      const more = page.IsTruncated === true;
      keyMarker = more ? page.NextKeyMarker : undefined;
      uploadIdMarker = more ? page.NextUploadIdMarker : undefined;
    } while (keyMarker !== undefined);
    return aborted;
  }

  async #upload(
    key: string,
    objectKey: string,
    body: Buffer | Readable,
    bytes: number,
    options: PutOptions,
  ): Promise<void> {
    // Stores without conditional writes (s3rver, some S3-compatibles) ignore If-None-Match; the HEAD makes the common
    // case (a run that committed long ago) fail there too. Between this HEAD and the PUT such a store has a race
    // window; on AWS S3 the If-None-Match header closes it.
    if (options.ifNoneMatch && (await this.head(key)) !== undefined) {
      throw new StorageError('ERR_STORAGE_EXISTS', `${this.#describe(key)} already exists`);
    }
    const upload = new Upload({
      client: this.client,
      partSize: partSizeFor(bytes),
      queueSize: this.#queueSize,
      leavePartsOnError: false,
      params: {
        Bucket: this.#bucket,
        Key: objectKey,
        Body: body,
        ContentLength: bytes,
        Metadata: { [META_SHA256]: options.sha256 },
        ...this.#sse,
        ...(options.ifNoneMatch && { IfNoneMatch: '*' }),
      },
    });
    try {
      await upload.done();
    } catch (error) {
      // The SDK retried a request whose first attempt may have landed (reply lost): a PUT now refused by our own
      // object under If-None-Match, or a Complete whose upload id is already used up. The object decides.
      if (attempts(error) > 1 && LANDED_CODES.has(s3ErrorCode(error))) {
        const existing = await this.head(key).catch(() => undefined);
        if (existing?.sha256 === options.sha256 && existing.bytes === bytes) return;
      }
      if (options.ifNoneMatch && classifyS3Error(error) === 'ERR_STORAGE_EXISTS') {
        throw new StorageError('ERR_STORAGE_EXISTS', `${this.#describe(key)} already exists`, {
          cause: toStorageError(error, 'write', this.#describe(key)).cause,
        });
      }
      throw error;
    }
  }

  async #verify(key: string, bytes: number, sha256: string): Promise<StoredObject> {
    const stored = await this.head(key);
    if (stored === undefined) {
      throw new StorageError('ERR_STORAGE_INTEGRITY', `${this.#describe(key)} is not visible after upload`);
    }
    if (stored.bytes !== bytes || stored.sha256 !== sha256) {
      throw this.#integrity(key, `stored ${stored.bytes} bytes, sha256 ${stored.sha256 ?? '(none)'}`, sha256, bytes);
    }
    return { key, bytes, sha256 };
  }

  #integrity(key: string, found: string, sha256: string, bytes?: number): StorageError {
    const expected = bytes === undefined ? `sha256 ${sha256}` : `${bytes} bytes, sha256 ${sha256}`;
    return new StorageError('ERR_STORAGE_INTEGRITY', `${this.#describe(key)}: ${found}, expected ${expected}`);
  }

  async #guard<T>(action: S3Action, key: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      throw toStorageError(error, action, this.#describe(key));
    }
  }

  #objectKey(key: string): string {
    assertSafeKey(key);
    return this.#root + key;
  }

  #checkPrefix(prefix: string): string {
    if (prefix !== '') assertSafeKey(prefix.replace(/\/$/, ''));
    return prefix;
  }

  #describe(key: string): string {
    return key === '' ? this.location : `${this.location}/${key}`;
  }
}

function sseParams(
  sse: ServerSideEncryption | undefined,
): Pick<PutObjectCommandInput, 'ServerSideEncryption' | 'SSEKMSKeyId'> {
  if (sse === undefined) return {};
  if (sse.kind === 'AES256') return { ServerSideEncryption: 'AES256' };
  return { ServerSideEncryption: 'aws:kms', ...(sse.keyId !== undefined && { SSEKMSKeyId: sse.keyId }) };
}

function attempts(error: unknown): number {
  const value = (error as { $metadata?: { attempts?: unknown } }).$metadata?.attempts;
  return typeof value === 'number' ? value : 1;
}

/** Passes bytes through and fails at the end when their sha256 is not the declared one. */
class Sha256Check extends Transform {
  readonly #hash = createHash('sha256');

  constructor(
    readonly expected: string,
    readonly describe: () => string,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.#hash.update(chunk);
    done(null, chunk);
  }

  override _flush(done: TransformCallback): void {
    const actual = this.#hash.digest('hex');
    if (actual === this.expected) done();
    else {
      done(
        new StorageError(
          'ERR_STORAGE_INTEGRITY',
          `${this.describe()}: file has sha256 ${actual}, expected ${this.expected}`,
        ),
      );
    }
  }
}
