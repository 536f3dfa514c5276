import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import {
  copyFile,
  type FileHandle,
  link,
  mkdir,
  open,
  readdir,
  rename,
  rm,
  rmdir,
  stat,
  unlink,
} from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import type { Readable } from 'node:stream';
import { crashPoint } from '../crash-point.js';
import { fileErrorReason, fsyncPath, hashFile } from '../local-file.js';
import {
  assertSafeKey,
  type ByteRange,
  type PutOptions,
  type Storage,
  StorageError,
  type StorageErrorCode,
  type StoredObject,
} from './storage.js';

const TEMP_SUFFIX = '.shopsnap-tmp';

/** Storage in a local directory: temp file, fsync, rename, fsync of the directory (restic's order). */
export class LocalDirStorage implements Storage {
  readonly location: string;
  readonly #root: string;

  constructor(root: string) {
    this.#root = resolve(root);
    this.location = this.#root;
  }

  async putFile(key: string, localPath: string, options: PutOptions): Promise<StoredObject> {
    const target = this.#pathOf(key);
    return this.#commit(key, target, options, async (temp) => {
      await copyFile(localPath, temp);
      await fsyncPath(temp);
      crashPoint('mid-upload');
    });
  }

  async putBytes(key: string, body: Uint8Array, options: PutOptions): Promise<StoredObject> {
    const target = this.#pathOf(key);
    return this.#commit(key, target, options, async (temp) => {
      const handle = await open(temp, 'wx');
      try {
        await handle.writeFile(body);
        await handle.sync();
      } finally {
        await handle.close();
      }
    });
  }

  async head(key: string): Promise<StoredObject | undefined> {
    try {
      const info = await stat(this.#pathOf(key));
      return info.isFile() ? { key, bytes: info.size } : undefined;
    } catch (error) {
      if (isErrno(error, 'ENOENT') || isErrno(error, 'ENOTDIR')) return undefined;
      throw this.#error(error, key, 'read');
    }
  }

  async get(key: string): Promise<Readable> {
    const path = this.#pathOf(key);
    if ((await this.head(key)) === undefined) {
      throw new StorageError('ERR_STORAGE_NOT_FOUND', `${this.#describe(key)} does not exist`);
    }
    return createReadStream(path);
  }

  async readRange(key: string, range: ByteRange): Promise<Buffer> {
    let file: FileHandle;
    try {
      file = await open(this.#pathOf(key), 'r');
    } catch (error) {
      if (isErrno(error, 'ENOENT') || isErrno(error, 'ENOTDIR')) {
        throw new StorageError('ERR_STORAGE_NOT_FOUND', `${this.#describe(key)} does not exist`);
      }
      throw this.#error(error, key, 'read');
    }
    try {
      const bytes = Buffer.allocUnsafe(Math.max(0, range.end - range.start));
      let filled = 0;
      while (filled < bytes.length) {
        const { bytesRead } = await file.read(bytes, filled, bytes.length - filled, range.start + filled);
        if (bytesRead === 0) break;
        filled += bytesRead;
      }
      return bytes.subarray(0, filled);
    } catch (error) {
      throw this.#error(error, key, 'read');
    } finally {
      await file.close();
    }
  }

  async *list(prefix: string): AsyncIterable<StoredObject> {
    for await (const path of walk(this.#prefixPath(prefix))) {
      if (path.endsWith(TEMP_SUFFIX)) continue;
      const info = await stat(path);
      yield { key: relative(this.#root, path).split(sep).join('/'), bytes: info.size };
    }
  }

  async delete(key: string): Promise<void> {
    const path = this.#pathOf(key);
    await rm(path, { force: true });
    await this.#pruneFrom(dirname(path));
  }

  /**
   * A killed run leaves its half-copied temp files behind: the local counterpart of unfinished multipart uploads.
   * They are never listed, so without this sweep they would keep an abandoned snapshot's folder alive; so would the
   * empty folders of copies killed before their temp file existed, which go too (in the same pass). Returns the temp
   * files removed.
   */
  async abortIncompleteUploads(prefix: string): Promise<number> {
    const top = this.#prefixPath(prefix);
    const { removed, empty } = await sweepKilledCopies(top);
    if (empty) await this.#pruneFrom(top);
    return removed;
  }

  /** Like a bucket, a directory tree has no folders of its own: the ones a delete empties go too. */
  async #pruneFrom(start: string): Promise<void> {
    for (let dir = start; dir !== this.#root && dir.startsWith(this.#root); dir = dirname(dir)) {
      try {
        await rmdir(dir);
      } catch {
        break;
      }
    }
  }

  #prefixPath(prefix: string): string {
    return prefix === '' ? this.#root : this.#pathOf(prefix.replace(/\/$/, ''));
  }

  async #commit(
    key: string,
    target: string,
    options: PutOptions,
    writeTemp: (temp: string) => Promise<void>,
  ): Promise<StoredObject> {
    const temp = `${target}.${randomBytes(6).toString('hex')}${TEMP_SUFFIX}`;
    try {
      await mkdir(dirname(target), { recursive: true });
      await writeTemp(temp);
      const written = await hashFile(temp);
      if (written.sha256 !== options.sha256) {
        throw new StorageError(
          'ERR_STORAGE_INTEGRITY',
          `${this.#describe(key)}: wrote sha256 ${written.sha256}, expected ${options.sha256}`,
        );
      }
      if (options.ifNoneMatch) {
        // link() fails with EEXIST instead of replacing: create-only, atomically.
        await link(temp, target).catch((error: unknown) => {
          if (isErrno(error, 'EEXIST')) {
            throw new StorageError('ERR_STORAGE_EXISTS', `${this.#describe(key)} already exists`);
          }
          throw error;
        });
        await unlink(temp);
      } else {
        await rename(temp, target);
      }
      await fsyncPath(dirname(target));
      return { key, bytes: written.bytes, sha256: written.sha256 };
    } catch (error) {
      // The write's error is the one to report. A temp file that cannot be removed was mostly never created (the
      // destination is a file, say); any other is swept by abortIncompleteUploads.
      await rm(temp, { force: true }).catch(() => undefined);
      throw this.#error(error, key, 'write');
    }
  }

  #pathOf(key: string): string {
    assertSafeKey(key);
    const path = resolve(this.#root, ...key.split('/'));
    if (!path.startsWith(this.#root + sep)) {
      throw new StorageError('ERR_STORAGE_KEY', `key ${JSON.stringify(key)} escapes ${this.#root}`);
    }
    return path;
  }

  #describe(key: string): string {
    return join(this.#root, key);
  }

  #error(error: unknown, key: string, action: 'read' | 'write'): StorageError {
    if (error instanceof StorageError) return error;
    const code: StorageErrorCode =
      isErrno(error, 'ENOSPC') || isErrno(error, 'EDQUOT')
        ? 'ERR_STORAGE_NO_SPACE'
        : isErrno(error, 'EACCES') || isErrno(error, 'EPERM') || isErrno(error, 'EROFS')
          ? 'ERR_STORAGE_ACCESS'
          : 'ERR_STORAGE_IO';
    return new StorageError(code, `cannot ${action} ${this.#describe(key)}: ${fileErrorReason(error)}`, {
      cause: error,
    });
  }
}

async function* walk(dir: string): AsyncIterable<string> {
  let entries: import('node:fs').Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (error) {
    if (isErrno(error, 'ENOENT')) return;
    throw error;
  }
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(path);
    else if (entry.isFile()) yield path;
  }
}

/**
 * Removes, deepest first, the temp files under `dir` and the folders left holding nothing else. Returns the temp files
 * removed, and whether `dir` itself is now empty.
 */
async function sweepKilledCopies(dir: string): Promise<{ removed: number; empty: boolean }> {
  let entries: import('node:fs').Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (error) {
    if (isErrno(error, 'ENOENT')) return { removed: 0, empty: false };
    throw error;
  }
  let removed = 0;
  let empty = true;
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isFile() && entry.name.endsWith(TEMP_SUFFIX)) {
      await rm(path, { force: true });
      removed += 1;
    } else if (entry.isDirectory()) {
      const inner = await sweepKilledCopies(path);
      removed += inner.removed;
      if (!(inner.empty && (await removeFolderIfEmpty(path)))) empty = false;
    } else {
      empty = false;
    }
  }
  return { removed, empty };
}

/** False when the folder was filled meanwhile (ENOTEMPTY): it belongs to a live writer and stays. */
async function removeFolderIfEmpty(path: string): Promise<boolean> {
  try {
    await rmdir(path);
    return true;
  } catch (error) {
    if (isErrno(error, 'ENOTEMPTY')) return false;
    throw error;
  }
}

export function isErrno(error: unknown, code: string): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === code;
}
