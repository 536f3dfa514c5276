import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateMultipartUploadCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { S3Storage } from '../../src/storage/s3-storage.js';
import { type FaultProxy, startFaultProxy } from '../helpers/s3-fault-proxy.js';
import { BUCKET, s3rverOptions } from '../helpers/s3-fixture.js';
import { type S3rverProcess, startS3rver } from '../helpers/s3rver-process.js';
import { readAll, runStorageContract, sha256 } from './storage.contract.js';

let s3rver: S3rverProcess;
let proxy: FaultProxy;
let scratch: string;
let prefixes = 0;

beforeAll(async () => {
  s3rver = await startS3rver([BUCKET]);
  proxy = await startFaultProxy(s3rver.endpoint);
  scratch = await mkdtemp(join(tmpdir(), 'shopsnap-s3-'));
});
afterAll(async () => {
  await proxy?.close();
  await s3rver?.stop();
  await rm(scratch, { recursive: true, force: true });
});
beforeEach(() => {
  proxy.setFault(undefined);
  proxy.setListPageSize(undefined);
  proxy.requests.length = 0;
});

const nextPrefix = (name: string) => `${name}-${++prefixes}`;

// Straight to s3rver, which ignores If-None-Match: the contract's create-once case rests on the HEAD before the PUT.
runStorageContract(
  'S3Storage on s3rver',
  async () => new S3Storage({ bucket: BUCKET, prefix: nextPrefix('contract'), ...s3rverOptions(s3rver.endpoint) }),
);

// Also with the SDK's default checksums: every body we hand the SDK is a Buffer, which s3rver stores intact.
runStorageContract(
  'S3Storage on s3rver, default checksum settings',
  async () =>
    new S3Storage({
      bucket: BUCKET,
      prefix: nextPrefix('contract-default'),
      ...s3rverOptions(s3rver.endpoint, { checksumCalculation: undefined }),
    }),
);

describe('S3Storage through a recording proxy', () => {
  const viaProxy = (options: Partial<ConstructorParameters<typeof S3Storage>[0]> = {}) =>
    new S3Storage({ bucket: BUCKET, prefix: nextPrefix('proxied'), ...s3rverOptions(proxy.endpoint), ...options });

  it('sends a 30 MB file as 8 MiB parts with Content-MD5, our sha256 in metadata, and reads it back intact', async () => {
    const body = randomBytes(30_000_000);
    const path = join(scratch, 'big.bin');
    await writeFile(path, body);
    const storage = viaProxy();
    const stored = await storage.putFile('snap/orders.ndjson', path, { sha256: sha256(body) });
    expect(stored).toEqual({ key: 'snap/orders.ndjson', bytes: body.length, sha256: sha256(body) });

    const parts = proxy.requests.filter((r) => r.op === 'UploadPart');
    expect(parts.map((p) => p.bytes)).toEqual([8_388_608, 8_388_608, 8_388_608, 4_834_176]);
    for (const part of parts) {
      expect(part.headers['content-md5']).toBe(Buffer.from(part.md5, 'hex').toString('base64'));
    }
    expect(proxy.count('PutObject')).toBe(0);
    expect(proxy.requests.find((r) => r.op === 'CreateMultipartUpload')?.headers['x-amz-meta-sha256']).toBe(
      sha256(body),
    );
    expect(proxy.count('CompleteMultipartUpload')).toBe(1);
    expect(proxy.count('HeadObject')).toBe(1);
    expect(await storage.head('snap/orders.ndjson')).toEqual(stored);
    expect(sha256(await readAll(await storage.get('snap/orders.ndjson')))).toBe(sha256(body));
  });

  it('list follows continuation tokens across pages', async () => {
    const storage = viaProxy();
    const keys = ['s/a', 's/b', 's/c', 's/d', 's/e'];
    for (const key of keys) await storage.putBytes(key, Buffer.from(key), { sha256: sha256(Buffer.from(key)) });
    proxy.requests.length = 0;
    proxy.setListPageSize(2);
    const listed: string[] = [];
    for await (const item of storage.list('s/')) listed.push(item.key);
    expect(listed).toEqual(keys);
    expect(proxy.count('ListObjectsV2')).toBe(3);
  });

  it('a small file is one PutObject with Content-MD5 and x-amz-meta-sha256', async () => {
    const body = Buffer.from('{"id":1}\n');
    await viaProxy().putBytes('snap/small.ndjson', body, { sha256: sha256(body) });
    const [put] = proxy.requests.filter((r) => r.op === 'PutObject');
    expect(put?.headers['content-md5']).toBe(createHash('md5').update(body).digest('base64'));
    expect(put?.headers['x-amz-meta-sha256']).toBe(sha256(body));
    expect(put?.headers['if-none-match']).toBeUndefined();
  });

  it('the manifest PUT carries If-None-Match: * and a 412 from the store is ERR_STORAGE_EXISTS', async () => {
    const storage = viaProxy();
    const first = Buffer.from('{"run":"a"}');
    await storage.putBytes('snap/manifest.json', first, { sha256: sha256(first), ifNoneMatch: true });
    expect(proxy.requests.find((r) => r.op === 'PutObject')?.headers['if-none-match']).toBe('*');

    // The other run's HEAD saw nothing; its PUT loses the race on the store (the proxy answers as S3 does).
    let heads = 0;
    proxy.setFault((r) => (r.op === 'HeadObject' && ++heads === 1 ? { status: 404, code: 'NotFound' } : undefined));
    const second = Buffer.from('{"run":"b"}');
    await expect(
      storage.putBytes('snap/manifest.json', second, { sha256: sha256(second), ifNoneMatch: true }),
    ).rejects.toMatchObject({ code: 'ERR_STORAGE_EXISTS' });
    expect(proxy.requests.filter((r) => r.op === 'PutObject')).toHaveLength(2);
    expect((await readAll(await storage.get('snap/manifest.json'))).toString()).toBe('{"run":"a"}');
  });

  it('with the SDK default checksums (WHEN_SUPPORTED) every upload request carries CRC32 instead', async () => {
    const storage = viaProxy({ checksumCalculation: 'WHEN_SUPPORTED' });
    const small = Buffer.from('{"id":1}\n');
    await storage.putBytes('snap/a', small, { sha256: sha256(small) });
    const large = randomBytes(9_000_000);
    await storage.putBytes('snap/b', large, { sha256: sha256(large) });
    const bodies = proxy.requests.filter((r) => r.op === 'PutObject' || r.op === 'UploadPart');
    expect(bodies.map((r) => r.op)).toEqual(['PutObject', 'UploadPart', 'UploadPart']);
    for (const request of bodies) {
      expect(request.headers['x-amz-checksum-crc32']).toMatch(/^[A-Za-z0-9+/]{6}==$/);
      expect(request.headers['content-md5']).toBeUndefined();
    }
    expect(sha256(await readAll(await storage.get('snap/b')))).toBe(sha256(large));
  });

  it('takes WHEN_REQUIRED from AWS_REQUEST_CHECKSUM_CALCULATION when the option is unset', async () => {
    process.env.AWS_REQUEST_CHECKSUM_CALCULATION = 'WHEN_REQUIRED';
    try {
      const body = Buffer.from('{"id":1}\n');
      await viaProxy({ checksumCalculation: undefined }).putBytes('snap/a', body, { sha256: sha256(body) });
    } finally {
      delete process.env.AWS_REQUEST_CHECKSUM_CALCULATION;
    }
    const [put] = proxy.requests.filter((r) => r.op === 'PutObject');
    expect(put?.headers['content-md5']).toBeDefined();
    expect(put?.headers['x-amz-checksum-crc32']).toBeUndefined();
  });

  it.each([
    ['SSE-S3', { kind: 'AES256' } as const, 'AES256', undefined],
    ['SSE-KMS with a key id', { kind: 'aws:kms', keyId: 'alias/shopsnap' } as const, 'aws:kms', 'alias/shopsnap'],
  ])('%s headers go on single and multipart uploads', async (_name, sse, algorithm, keyId) => {
    const storage = viaProxy({ sse });
    const small = Buffer.from('x');
    await storage.putBytes('snap/a', small, { sha256: sha256(small) });
    const large = randomBytes(9_000_000);
    await storage.putBytes('snap/b', large, { sha256: sha256(large) });
    for (const op of ['PutObject', 'CreateMultipartUpload'] as const) {
      const request = proxy.requests.find((r) => r.op === op);
      expect(request?.headers['x-amz-server-side-encryption']).toBe(algorithm);
      expect(request?.headers['x-amz-server-side-encryption-aws-kms-key-id']).toBe(keyId);
    }
  });

  it('abortIncompleteUploads aborts the uploads a killed run left under its prefix, and only those', async () => {
    const storage = viaProxy();
    const root = storage.location.replace(`s3://${BUCKET}/`, '');
    const start = (key: string) =>
      storage.client.send(new CreateMultipartUploadCommand({ Bucket: BUCKET, Key: `${root}/${key}` }));
    const cutoff = new Date(Date.now() + 60_000);
    await start('run-a/orders.ndjson');
    await start('run-a/customers.ndjson');
    await start('run-b/orders.ndjson');

    expect(await storage.abortIncompleteUploads('run-a/', { initiatedBefore: new Date(0) })).toBe(0);
    expect(await storage.abortIncompleteUploads('run-a/', { initiatedBefore: cutoff })).toBe(2);
    expect(proxy.requests.filter((r) => r.op === 'AbortMultipartUpload').map((r) => r.key)).toEqual([
      `${root}/run-a/customers.ndjson`,
      `${root}/run-a/orders.ndjson`,
    ]);
    expect(await storage.abortIncompleteUploads('run-a/')).toBe(0);
    expect(await storage.abortIncompleteUploads('')).toBe(1);
  });

  it('abortIncompleteUploads follows the listing across pages', async () => {
    const storage = viaProxy();
    const root = storage.location.replace(`s3://${BUCKET}/`, '');
    for (const key of ['a', 'b', 'b', 'c', 'd']) {
      await storage.client.send(new CreateMultipartUploadCommand({ Bucket: BUCKET, Key: `${root}/run/${key}` }));
    }
    proxy.setListPageSize(2);
    expect(await storage.abortIncompleteUploads('run/')).toBe(5);
    expect(proxy.count('ListMultipartUploads')).toBe(3);
    expect(await storage.abortIncompleteUploads('run/')).toBe(0);
  });

  // s3rver answers ListMultipartUploads with 501: a store that cannot list uploads leaves nothing for us to sweep.
  it.each([
    [501, 'NotImplemented', 0],
    [403, 'AccessDenied', 'ERR_STORAGE_ACCESS'],
    [503, 'SlowDown', 'ERR_STORAGE_IO'],
  ])('abortIncompleteUploads answered %i %s: %s', async (status, code, expected) => {
    proxy.setFault((r) => (r.op === 'ListMultipartUploads' ? { status, code } : undefined));
    const outcome = await viaProxy({ maxAttempts: 1 })
      .abortIncompleteUploads('run/')
      .catch((error: { code: string }) => error.code);
    expect(outcome).toBe(expected);
  });
});
