import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { S3Storage, type S3StorageOptions } from '../../src/storage/s3-storage.js';
import { StorageError } from '../../src/storage/storage.js';
import { type FaultProxy, type ProxiedRequest, startFaultProxy } from '../helpers/s3-fault-proxy.js';
import { BUCKET, s3rverOptions } from '../helpers/s3-fixture.js';
import { type S3rverProcess, startS3rver } from '../helpers/s3rver-process.js';
import { readAll, sha256 } from './storage.contract.js';

const CANARY = { accessKeyId: 'AKIACANARY7Q3XZ0KEY1', secretAccessKey: 'canary/secret+Zm9vYmFyYmF6cXV4' };

let s3rver: S3rverProcess;
let proxy: FaultProxy;
let scratch: string;
let bigFile: string;
let bigBody: Buffer;
let prefixes = 0;

beforeAll(async () => {
  s3rver = await startS3rver([BUCKET]);
  proxy = await startFaultProxy(s3rver.endpoint);
  scratch = await mkdtemp(join(tmpdir(), 'shopsnap-s3-faults-'));
  bigBody = randomBytes(20_000_000); // three 8 MiB parts
  bigFile = join(scratch, 'big.bin');
  await writeFile(bigFile, bigBody);
});
afterAll(async () => {
  await proxy?.close();
  await s3rver?.stop();
  await rm(scratch, { recursive: true, force: true });
});
beforeEach(() => {
  proxy.setFault(undefined);
  proxy.requests.length = 0;
});

const viaProxy = (options: Partial<S3StorageOptions> = {}) =>
  new S3Storage({ bucket: BUCKET, prefix: `faults-${++prefixes}`, ...s3rverOptions(proxy.endpoint), ...options });

const direct = (storage: S3Storage) =>
  new S3Storage({
    bucket: BUCKET,
    prefix: storage.location.replace(`s3://${BUCKET}/`, ''),
    ...s3rverOptions(s3rver.endpoint),
  });

const part = (r: ProxiedRequest, n: number) => r.op === 'UploadPart' && r.query.get('partNumber') === String(n);

async function failure(promise: Promise<unknown>): Promise<StorageError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(StorageError);
  return error as StorageError;
}

/** Every string reachable from the error: message, stack, own properties, causes. */
function everything(error: unknown, seen = new Set<unknown>()): string {
  if (error === null || typeof error !== 'object' || seen.has(error)) return String(error);
  seen.add(error);
  const names = Object.getOwnPropertyNames(error) as (keyof typeof error)[];
  return names.map((name) => `${String(name)}=${everything(error[name], seen)}`).join('\n');
}

describe('S3Storage retries transient faults', () => {
  it('survives 503 SlowDown, 500 InternalError and RequestTimeout on parts, re-sending the same bytes', async () => {
    const faults: Record<string, { status: number; code: string }> = {
      1: { status: 400, code: 'RequestTimeout' },
      2: { status: 503, code: 'SlowDown' },
      3: { status: 500, code: 'InternalError' },
    };
    proxy.setFault((r) =>
      r.op === 'UploadPart' && r.attempt === 1 ? faults[r.query.get('partNumber') ?? ''] : undefined,
    );
    const storage = viaProxy();
    await storage.putFile('snap/big.bin', bigFile, { sha256: sha256(bigBody) });

    for (const n of [1, 2, 3]) {
      const attempts = proxy.requests.filter((r) => part(r, n));
      expect(attempts.map((a) => a.attempt)).toEqual([1, 2]);
      expect(attempts[1]?.md5).toBe(attempts[0]?.md5);
    }
    expect(sha256(await readAll(await storage.get('snap/big.bin')))).toBe(sha256(bigBody));
  });

  it('survives a connection dropped during a part', async () => {
    proxy.setFault((r) => (part(r, 2) && r.attempt === 1 ? { drop: 'before' } : undefined));
    const storage = viaProxy();
    await storage.putFile('snap/big.bin', bigFile, { sha256: sha256(bigBody) });
    expect(proxy.requests.filter((r) => part(r, 2))).toHaveLength(2);
    expect((await storage.head('snap/big.bin'))?.sha256).toBe(sha256(bigBody));
  });

  it('survives a part whose request hangs, once the idle timeout fires', async () => {
    proxy.setFault((r) => (part(r, 3) && r.attempt === 1 ? { hang: true } : undefined));
    const storage = viaProxy({ idleTimeoutMs: 1000 });
    await storage.putFile('snap/big.bin', bigFile, { sha256: sha256(bigBody) });
    expect(proxy.requests.filter((r) => part(r, 3))).toHaveLength(2);
    expect((await storage.head('snap/big.bin'))?.sha256).toBe(sha256(bigBody));
  });

  it('a CompleteMultipartUpload whose reply is lost is confirmed by HEAD, not failed', async () => {
    proxy.setFault((r) => (r.op === 'CompleteMultipartUpload' && r.attempt === 1 ? { drop: 'after' } : undefined));
    const storage = viaProxy();
    await storage.putFile('snap/big.bin', bigFile, { sha256: sha256(bigBody) });
    expect(proxy.count('CompleteMultipartUpload')).toBe(2);
    expect(sha256(await readAll(await storage.get('snap/big.bin')))).toBe(sha256(bigBody));
  });

  it('a conditional manifest PUT whose reply is lost is refused on retry by its own object, and succeeds', async () => {
    proxy.setFault((r) => (r.op === 'PutObject' && r.attempt === 1 ? { drop: 'after' } : undefined));
    const body = Buffer.from('{"snapshot":"s1"}');
    const storage = viaProxy();
    await storage.putBytes('s1/manifest.json', body, { sha256: sha256(body), ifNoneMatch: true });
    expect(proxy.count('PutObject')).toBe(2);

    const other = Buffer.from('{"snapshot":"s1","run":"other"}');
    await expect(
      storage.putBytes('s1/manifest.json', other, { sha256: sha256(other), ifNoneMatch: true }),
    ).rejects.toMatchObject({ code: 'ERR_STORAGE_EXISTS' });
  });

  it('gives up after maxAttempts with an error naming the S3 code and the object', async () => {
    proxy.setFault((r) => (r.op === 'PutObject' ? { status: 503, code: 'SlowDown' } : undefined));
    const storage = viaProxy({ maxAttempts: 3 });
    const body = Buffer.from('x');
    const error = await failure(storage.putBytes('snap/x', body, { sha256: sha256(body) }));
    expect(error.code).toBe('ERR_STORAGE_IO');
    expect(error.message).toBe(`cannot write ${storage.location}/snap/x: SlowDown (HTTP 503) after 3 attempts`);
    expect(proxy.count('PutObject')).toBe(3);
  });
});

describe('S3Storage fails fast on permanent errors', () => {
  it('AccessDenied on a part: one request per part, the upload is aborted, no object, bucket and key named', async () => {
    proxy.setFault((r) => (r.op === 'UploadPart' ? { status: 403, code: 'AccessDenied' } : undefined));
    const storage = viaProxy({ queueSize: 1 });
    const error = await failure(storage.putFile('snap/big.bin', bigFile, { sha256: sha256(bigBody) }));
    expect(error.code).toBe('ERR_STORAGE_ACCESS');
    expect(error.message).toContain(`s3://${BUCKET}/`);
    expect(error.message).toContain('/snap/big.bin: AccessDenied (HTTP 403)');
    expect(proxy.count('UploadPart')).toBe(1);
    expect(proxy.count('CompleteMultipartUpload')).toBe(0);
    expect(proxy.count('AbortMultipartUpload')).toBe(1);
    expect(await storage.abortIncompleteUploads('')).toBe(0);
    expect(await direct(storage).head('snap/big.bin')).toBeUndefined();
  });

  it('AccessDenied on a small PUT is not retried', async () => {
    proxy.setFault(() => ({ status: 403, code: 'AccessDenied' }));
    const body = Buffer.from('x');
    const storage = viaProxy();
    const error = await failure(storage.putBytes('snap/manifest.json', body, { sha256: sha256(body) }));
    expect(error.code).toBe('ERR_STORAGE_ACCESS');
    expect(error.message).toContain(`${storage.location}/snap/manifest.json`);
    expect(proxy.requests).toHaveLength(1);
  });

  it('a file that does not match its declared sha256 is never completed; its upload is aborted', async () => {
    const storage = viaProxy();
    const error = await failure(storage.putFile('snap/big.bin', bigFile, { sha256: sha256(Buffer.from('other')) }));
    expect(error.code).toBe('ERR_STORAGE_INTEGRITY');
    expect(error.message).toContain(`${storage.location}/snap/big.bin: file has sha256 ${sha256(bigBody)}`);
    expect(proxy.count('CompleteMultipartUpload')).toBe(0);
    expect(proxy.count('AbortMultipartUpload')).toBe(1);
    expect(await storage.head('snap/big.bin')).toBeUndefined();
  });

  it('NoSuchBucket names the bucket and the key', async () => {
    const storage = new S3Storage({ bucket: 'no-such-bucket', prefix: 'p', ...s3rverOptions(s3rver.endpoint) });
    const body = Buffer.from('x');
    const put = await failure(storage.putBytes('snap/orders.ndjson', body, { sha256: sha256(body) }));
    expect(put.code).toBe('ERR_STORAGE_NOT_FOUND');
    expect(put.message).toContain('s3://no-such-bucket/p/snap/orders.ndjson: NoSuchBucket (HTTP 404)');
    const get = await failure(storage.get('snap/orders.ndjson'));
    expect(get.message).toContain('s3://no-such-bucket/p/snap/orders.ndjson: NoSuchBucket');
  });

  it('an unknown access key fails as ERR_STORAGE_ACCESS and the key appears nowhere in the error', async () => {
    // s3rver answers InvalidAccessKeyId with the key id in the XML body, as AWS does; the SDK copies it onto its error.
    const storage = new S3Storage({
      bucket: BUCKET,
      prefix: 'p',
      ...s3rverOptions(s3rver.endpoint, { credentials: CANARY }),
    });
    const body = Buffer.from('x');
    const errors = [
      await failure(storage.putBytes('k', body, { sha256: sha256(body) })),
      await failure(storage.get('k')),
      await failure(
        (async () => {
          for await (const _ of storage.list('')) break;
        })(),
      ),
    ];
    for (const error of errors) {
      expect(error.code).toBe('ERR_STORAGE_ACCESS');
      expect(error.message).toContain('InvalidAccessKeyId');
      const dump = everything(error);
      expect(dump).not.toContain(CANARY.accessKeyId);
      expect(dump).not.toContain(CANARY.secretAccessKey);
      expect(dump).not.toMatch(/CANARY|canary/);
    }
  });
});
