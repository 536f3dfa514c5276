import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream, type WriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { constants, createGzip, type Gzip, type ZlibOptions } from 'node:zlib';
import { crashPoint } from '../crash-point.js';
import { destroyAndClose, writeError } from '../local-file.js';

/**
 * zlib's default 16 KiB chunks cost about 1.3–2× the CPU of whole-buffer gzip on our rows (thread-pool round trips per
 * chunk); 256 KiB chunks match it (measured on 21 MB of simulated orders: 152–240 → 315 MB/s at level 1).
 */
const GZIP_CHUNK_BYTES = 256 * 1024;
/**
 * Text gzip may hold before write() waits: about four of the writers' 256 KiB batches. With one batch (the stream's
 * default of 16 KiB is less), every batch waited for its compression on the thread pool: the crawl's thread spent 6 s
 * of a 15 s backup of 30,000 orders waiting on the raw archive's gzip, 2 s with four.
 */
export const GZIP_QUEUE_BYTES = 1024 * 1024;

/** A temp name beside the final one, so the rename stays on one file system and is atomic. */
export function tempPathFor(path: string): string {
  return join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
}

/**
 * One gzip file being written: text bytes in, compressed bytes to a temp file, counted and hashed on their way to disk
 * (never by re-reading). finish() closes and renames into place; discard() removes the temp file.
 *
 * With `onMember`, each batch written becomes a gzip member of its own (a file of several members is still one gzip
 * stream to every reader), and onMember is told, in order, the byte offset where each member starts: a reader can
 * start decompressing there without reading what comes before.
 *
 * Parts are written to staging, which is scratch: a run that crashes wipes its staging, and a part counts only once
 * its copy is committed to storage, which makes that copy durable. So nothing here waits for the disk (an fsync of
 * the file and one of its folder, about 6 ms each on the build VM, twice per part).
 */
export class GzipPartFile {
  readonly path: string;
  readonly #temp: string;
  readonly #input: Transform;
  readonly #file: WriteStream;
  readonly #hash = createHash('sha256');
  readonly #done: Promise<void>;
  #bytes = 0;

  constructor(path: string, level: number, onMember?: (offset: number) => void) {
    this.path = path;
    this.#temp = tempPathFor(path);
    this.#input =
      onMember === undefined
        ? // zlib hands its options on to its Transform (Node's zlib.js); @types/node does not declare them.
          createGzip({ level, chunkSize: GZIP_CHUNK_BYTES, writableHighWaterMark: GZIP_QUEUE_BYTES } as ZlibOptions)
        : memberPerBatch(level);
    const count = new Transform({
      transform: (chunk: Buffer, _encoding, callback) => {
        onMember?.(this.#bytes);
        this.#bytes += chunk.length;
        this.#hash.update(chunk);
        callback(null, chunk);
      },
    });
    this.#file = createWriteStream(this.#temp);
    this.#done = pipeline(this.#input, count, this.#file).catch((error: unknown) => {
      throw writeError(error, path);
    });
    // Marked handled here; write() and finish() observe the failure.
    this.#done.catch(() => undefined);
  }

  /**
   * Resolves when the bytes are accepted; waits for the disk when gzip's buffer is full. `consumed` is called once
   * gzip has read the whole batch, after which the caller may reuse its buffer.
   */
  async write(batch: Buffer, consumed?: () => void): Promise<void> {
    if (this.#input.write(batch, (error) => error || consumed?.())) return;
    await new Promise<void>((resolve, reject) => {
      this.#input.once('drain', resolve);
      this.#done.then(resolve, reject);
    });
  }

  async finish(): Promise<{ path: string; bytes: number; sha256: string }> {
    this.#input.end();
    try {
      await this.#done;
      crashPoint('before-rename');
      await rename(this.#temp, this.path);
    } catch (error) {
      await rm(this.#temp, { force: true });
      throw error;
    }
    return { path: this.path, bytes: this.#bytes, sha256: this.#hash.digest('hex') };
  }

  async discard(): Promise<void> {
    this.#input.destroy();
    await this.#done.catch(() => undefined);
    await destroyAndClose(this.#file);
    await rm(this.#temp, { force: true });
  }
}

/**
 * Compresses each batch into a gzip member of its own, in order, on the thread pool (one at a time: the stream hands
 * over the next batch once this one is done, while the writer fills the batch after it). One zlib stream serves every
 * member: it is finished and reset after each (a new stream per member cost twice the CPU of gzip itself on 256 KiB
 * batches of orders). A file without a batch still gets one empty member: an empty file is no gzip.
 */
function memberPerBatch(level: number): Transform {
  // reset() is documented for every zlib stream; @types/node declares it for Deflate and Inflate only.
  const zlib = createGzip({ level, chunkSize: GZIP_CHUNK_BYTES }) as Gzip & { reset(): void };
  let output: Buffer[] = [];
  let failure: Error | undefined;
  // Flowing, never paused: a finish's output has all been received when its callback runs.
  zlib.on('data', (chunk: Buffer) => output.push(chunk));
  zlib.on('error', (error) => {
    failure = error;
  });
  let members = 0;
  const member = (batch: Buffer, done: (error: Error | null, member?: Buffer) => void) => {
    members++;
    zlib.write(batch);
    zlib.flush(constants.Z_FINISH, () => {
      if (failure) return done(failure);
      // The part was discarded while this member was compressed (its zlib is closed and cannot be reset).
      if (zlib.destroyed) return done(null);
      const compressed = Buffer.concat(output);
      output = [];
      zlib.reset();
      done(null, compressed);
    });
  };
  return new Transform({
    writableHighWaterMark: GZIP_QUEUE_BYTES,
    transform: (batch: Buffer, _encoding, callback) => member(batch, callback),
    flush: (callback) => (members > 0 ? callback() : member(Buffer.alloc(0), callback)),
    destroy: (error, callback) => {
      zlib.destroy();
      callback(error);
    },
  });
}
