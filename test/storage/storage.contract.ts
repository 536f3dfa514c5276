import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Storage, StorageError, type StoredObject } from '../../src/storage/storage.js';

/** Each call returns a storage with an empty root of its own, so tests never see each other's objects. */
export type MakeStorage = () => Promise<Storage>;

export function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

export async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export async function collect(items: AsyncIterable<StoredObject>): Promise<StoredObject[]> {
  const out: StoredObject[] = [];
  for await (const item of items) out.push(item);
  return out.sort((a, b) => a.key.localeCompare(b.key));
}

async function storageError(promise: Promise<unknown>): Promise<StorageError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(StorageError);
  return error as StorageError;
}

const text = (s: string) => new TextEncoder().encode(s);

/**
 * The Storage contract (src/storage/storage.ts), run against every implementation, as rclone's fstests and restic's
 * backend tests do: same behaviour on a local directory and on a bucket.
 */
export function runStorageContract(name: string, makeStorage: MakeStorage): void {
  describe(`Storage contract: ${name}`, () => {
    let scratch: string;

    beforeAll(async () => {
      scratch = await mkdtemp(join(tmpdir(), 'shopsnap-contract-'));
    });
    afterAll(async () => {
      await rm(scratch, { recursive: true, force: true });
    });

    const fresh = makeStorage;

    it('putBytes then head and get return the same bytes', async () => {
      const s = await fresh();
      const body = text('{"id":1}\n{"id":2}\n');
      const stored = await s.putBytes('snap-1/orders.ndjson', body, { sha256: sha256(body) });
      expect(stored).toMatchObject({ key: 'snap-1/orders.ndjson', bytes: body.length });
      const head = await s.head('snap-1/orders.ndjson');
      expect(head?.bytes).toBe(body.length);
      if (head?.sha256 !== undefined) expect(head.sha256).toBe(sha256(body));
      expect(sha256(await readAll(await s.get('snap-1/orders.ndjson')))).toBe(sha256(body));
    });

    it('readRange reads the bytes of a range, fewer where the object ends first, none past its end', async () => {
      const s = await fresh();
      const body = text('0123456789abcdef');
      await s.putBytes('snap-1/raw.jsonl.gz', body, { sha256: sha256(body) });
      const read = async (start: number, end: number) =>
        (await s.readRange('snap-1/raw.jsonl.gz', { start, end })).toString();
      expect(await read(3, 7)).toBe('3456');
      expect(await read(0, 1)).toBe('0');
      expect(await read(10, 16)).toBe('abcdef');
      expect(await read(10, 100)).toBe('abcdef');
      expect(await read(16, 20)).toBe('');
      expect(await read(5, 5)).toBe('');
      await expect(s.readRange('snap-1/missing', { start: 0, end: 4 })).rejects.toMatchObject({
        code: 'ERR_STORAGE_NOT_FOUND',
      });
    });

    it('putFile uploads a file whose read-back hash matches', async () => {
      const s = await fresh();
      const body = Buffer.alloc(300_000, 'abcdefghij');
      const path = join(scratch, 'file.bin');
      await writeFile(path, body);
      const stored = await s.putFile('snap-1/file.bin', path, { sha256: sha256(body) });
      expect(stored).toEqual({ key: 'snap-1/file.bin', bytes: body.length, sha256: sha256(body) });
      expect(sha256(await readAll(await s.get('snap-1/file.bin')))).toBe(sha256(body));
    });

    it('putFile of a missing local file fails with a StorageError and leaves no object', async () => {
      const s = await fresh();
      const error = await storageError(
        s.putFile('snap-1/x', join(scratch, 'absent.bin'), { sha256: sha256(text('')) }),
      );
      expect(error.message).toContain('snap-1/x');
      expect(await s.head('snap-1/x')).toBeUndefined();
    });

    it('an empty object round-trips', async () => {
      const s = await fresh();
      const empty = new Uint8Array(0);
      await s.putBytes('empty', empty, { sha256: sha256(empty) });
      expect((await s.head('empty'))?.bytes).toBe(0);
      expect((await readAll(await s.get('empty'))).length).toBe(0);
      const path = join(scratch, 'empty.ndjson');
      await writeFile(path, empty);
      expect(await s.putFile('empty-file', path, { sha256: sha256(empty) })).toMatchObject({ bytes: 0 });
      expect((await s.head('empty-file'))?.bytes).toBe(0);
    });

    it.each([
      ['putBytes', 'bytes'],
      ['putFile', 'file'],
    ])('%s with a wrong declared sha256 fails and leaves no object', async (_name, kind) => {
      const s = await fresh();
      const body = text('payload');
      const path = join(scratch, 'wrong-hash.bin');
      await writeFile(path, body);
      const options = { sha256: sha256(text('other')) };
      const put = kind === 'bytes' ? s.putBytes('bad', body, options) : s.putFile('bad', path, options);
      const error = await storageError(put);
      expect(error.code).toBe('ERR_STORAGE_INTEGRITY');
      expect(error.message).toContain('bad');
      expect(await s.head('bad')).toBeUndefined();
    });

    it('a plain put replaces an existing object', async () => {
      const s = await fresh();
      await s.putBytes('k', text('old'), { sha256: sha256(text('old')) });
      await s.putBytes('k', text('newer'), { sha256: sha256(text('newer')) });
      expect((await readAll(await s.get('k'))).toString()).toBe('newer');
    });

    it('ifNoneMatch creates once and then refuses, keeping the first content', async () => {
      const s = await fresh();
      const first = text('{"run":"a"}');
      const second = text('{"run":"b"}');
      await s.putBytes('snap-1/manifest.json', first, { sha256: sha256(first), ifNoneMatch: true });
      const error = await storageError(
        s.putBytes('snap-1/manifest.json', second, { sha256: sha256(second), ifNoneMatch: true }),
      );
      expect(error.code).toBe('ERR_STORAGE_EXISTS');
      expect(error.message).toContain('snap-1/manifest.json');
      expect((await readAll(await s.get('snap-1/manifest.json'))).toString()).toBe('{"run":"a"}');
    });

    it('head of a missing key is undefined; get of it is ERR_STORAGE_NOT_FOUND naming the key', async () => {
      const s = await fresh();
      expect(await s.head('nothing/here.json')).toBeUndefined();
      const error = await storageError(s.get('nothing/here.json'));
      expect(error.code).toBe('ERR_STORAGE_NOT_FOUND');
      expect(error.message).toContain('nothing/here.json');
    });

    it('list yields every object under a prefix with its size, and nothing outside it', async () => {
      const s = await fresh();
      const put = (key: string, body: string) => s.putBytes(key, text(body), { sha256: sha256(text(body)) });
      await put('snap-1/a.ndjson', 'a');
      await put('snap-1/deep/b.ndjson', 'bb');
      await put('snap-10/c.ndjson', 'ccc');
      await put('top.json', 'dddd');
      expect((await collect(s.list('snap-1/'))).map(({ key, bytes }) => ({ key, bytes }))).toEqual([
        { key: 'snap-1/a.ndjson', bytes: 1 },
        { key: 'snap-1/deep/b.ndjson', bytes: 2 },
      ]);
      expect((await collect(s.list(''))).map((o) => o.key)).toEqual([
        'snap-1/a.ndjson',
        'snap-1/deep/b.ndjson',
        'snap-10/c.ndjson',
        'top.json',
      ]);
      expect(await collect(s.list('missing/'))).toEqual([]);
    });

    it('delete removes an object; deleting a missing key is not an error', async () => {
      const s = await fresh();
      await s.putBytes('gone', text('x'), { sha256: sha256(text('x')) });
      await s.delete('gone');
      expect(await s.head('gone')).toBeUndefined();
      await expect(s.delete('gone')).resolves.toBeUndefined();
    });

    it.each(['../escape', '/absolute', 'a//b', 'a/./b', 'sp ace', ''])('refuses the unsafe key %j', async (key) => {
      const s = await fresh();
      const error = await storageError(s.putBytes(key, text('x'), { sha256: sha256(text('x')) }));
      expect(error.code).toBe('ERR_STORAGE_KEY');
      expect((await storageError(s.head(key))).code).toBe('ERR_STORAGE_KEY');
    });
  });
}
