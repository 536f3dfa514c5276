import { createWriteStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/** An object as the store holds it. `sha256` is our own whole-file hash (hex), kept with the object where possible. */
export interface StoredObject {
  key: string;
  bytes: number;
  sha256?: string;
}

/** Bytes `start` (inclusive) up to `end` (exclusive) of an object. */
export interface ByteRange {
  start: number;
  end: number;
}

export interface PutOptions {
  /** Hex sha256 of the whole content, stored with the object (S3 metadata) and checked after the write. */
  sha256: string;
  /**
   * Create only: fail with StorageError code 'ERR_STORAGE_EXISTS' when the key already exists. Used for manifest.json
   * so that of two runs racing on one snapshot exactly one commits.
   */
  ifNoneMatch?: boolean;
}

/**
 * A place that keeps the files of snapshots, addressed by '/'-separated keys relative to its root (a local directory,
 * or an S3 bucket and prefix). It knows bytes and keys, nothing about records or formats.
 *
 * Contract (test/storage/storage.contract.ts runs it against every implementation):
 * - put* writes atomically: a reader sees the old object, nothing, or the whole new object, never a part of it.
 * - put* verifies after writing (size and sha256 against what was stored) and throws when they differ.
 * - put* is safe to call again after a failure; transient faults are retried inside, permanent ones are not.
 * - head returns undefined (never throws) for a missing key.
 * - list yields every object under the prefix, in any order; keys never escape the root.
 * - every error is a StorageError naming the store and the key.
 */
export interface Storage {
  /** Human-readable location of the root, e.g. '/data/snapshots' or 's3://bucket/prefix'. Never holds credentials. */
  readonly location: string;
  putFile(key: string, localPath: string, options: PutOptions): Promise<StoredObject>;
  putBytes(key: string, body: Uint8Array, options: PutOptions): Promise<StoredObject>;
  head(key: string): Promise<StoredObject | undefined>;
  get(key: string): Promise<Readable>;
  /**
   * The bytes of `range`, fewer where the object ends before `range.end` (none where it ends before its start): a
   * small part of a large object, e.g. one gzip member of an archive part, read in one request.
   */
  readRange(key: string, range: ByteRange): Promise<Buffer>;
  list(prefix: string): AsyncIterable<StoredObject>;
  /** Removes the object; missing keys are not an error. Used only to clean up a run's own leftovers. */
  delete(key: string): Promise<void>;
  /** Stores with multipart uploads: aborts unfinished uploads under the prefix (left by killed runs). */
  abortIncompleteUploads?(prefix: string): Promise<number>;
}

export type StorageErrorCode =
  | 'ERR_STORAGE_EXISTS'
  | 'ERR_STORAGE_NOT_FOUND'
  | 'ERR_STORAGE_ACCESS'
  | 'ERR_STORAGE_INTEGRITY'
  | 'ERR_STORAGE_KEY'
  | 'ERR_STORAGE_NO_SPACE'
  | 'ERR_STORAGE_IO';

export class StorageError extends Error {
  override name = 'StorageError';
  constructor(
    readonly code: StorageErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

const SAFE_KEY_SEGMENT = /^[A-Za-z0-9._=-]+$/;

/** Rejects keys that could escape the root or confuse a store: empty, absolute, '..', odd characters. */
export function assertSafeKey(key: string): void {
  const segments = key.split('/');
  const bad = segments.find((s) => !SAFE_KEY_SEGMENT.test(s) || s === '.' || s === '..');
  if (key.length === 0 || bad !== undefined) {
    throw new StorageError('ERR_STORAGE_KEY', `refusing unsafe storage key ${JSON.stringify(key)}`);
  }
}

/** The whole object as UTF-8 text: for small objects only (manifests, leases). */
export async function readObjectText(storage: Storage, key: string): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of await storage.get(key)) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Copies an object into a local file (a scratch copy for a reader that needs one, such as DuckDB). */
export async function downloadObject(storage: Storage, key: string, path: string): Promise<void> {
  await pipeline(await storage.get(key), createWriteStream(path));
}
