import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { crashPoint } from '../crash-point.js';
import { SinkError } from './errors.js';
import { GZIP_QUEUE_BYTES, GzipPartFile } from './gzip-part-file.js';
import { TextCopy } from './text-copy.js';
import type { FileFormat, WrittenFile } from './written-file.js';

export interface PartLimits {
  /**
   * A part is closed after this many lines.
   * @default 1_000_000
   */
  maxRowsPerPart?: number;
  /**
   * A part is closed after the line that brings its text (before compression) to this many bytes.
   * @default 1 GiB
   */
  maxBytesPerPart?: number;
  /**
   * gzip level. On simulated orders level 1 shrinks text to 14% at 315 MB/s, level 6 to 9% at half that speed; 0 stores
   * without compressing (still gzip framing), e.g. for NDJSON that only feeds the Parquet conversion.
   * @default 1
   */
  gzipLevel?: number;
  /**
   * Number of the first part, e.g. to continue a resumed snapshot after the parts it already holds.
   * @default 0
   */
  firstPart?: number;
}

/** A gzip member of a part: where it starts in the file and how many lines it holds (see PartWriterOptions.onMember). */
export interface GzipMember {
  offset: number;
  lines: number;
}

export interface PartWriterOptions extends PartLimits {
  dir: string;
  name: string;
  format: FileFormat;
  extension: string;
  /**
   * Makes every batch of lines a gzip member of its own and reports each, in line order, once it is compressed: the
   * lines of a part can then be read from the member that holds them without decompressing what comes before.
   */
  onMember?: (member: GzipMember) => void;
  /** Also writes each part's lines uncompressed beside it, for the Parquet conversion (see TextCopy). */
  textCopy?: boolean;
}

const DEFAULT_MAX_ROWS_PER_PART = 1_000_000;
const DEFAULT_MAX_BYTES_PER_PART = 1024 * 1024 * 1024;
const DEFAULT_GZIP_LEVEL = 1;
/**
 * Lines are encoded straight into a batch buffer of this size and handed to gzip a batch at a time. Concatenating
 * lines into one string instead cost 60 µs more per simulated order (flattening the string when it is encoded).
 */
const BATCH_BYTES = 256 * 1024;
const NO_BATCH = Buffer.alloc(0);
/** Batches gzip may hold (GZIP_QUEUE_BYTES), one being filled, and one for a text copy that lags. */
const SPARE_BATCHES = GZIP_QUEUE_BYTES / BATCH_BYTES + 2;

/** `part-00000`: five digits keep parts in order under a plain lexical listing. */
function partName(index: number, extension: string): string {
  return `part-${String(index).padStart(5, '0')}.${extension}`;
}

/** `…/part-00042.ndjson.gz` → 42; undefined for a path that names no part. */
export function partNumberOf(path: string): number | undefined {
  const match = /part-(\d+)\.[^/\\]+$/.exec(path);
  return match === null ? undefined : Number(match[1]);
}

/**
 * Lines into rotating gzip parts `<dir>/<name>/part-NNNNN.<extension>`, shared by the NDJSON table writer and the raw
 * archive. Lines must not contain '\n'; the caller guarantees that.
 */
export class PartWriter {
  readonly #folder: string;
  readonly #name: string;
  readonly #format: FileFormat;
  readonly #extension: string;
  readonly #maxRows: number;
  readonly #maxBytes: number;
  readonly #level: number;
  readonly #written: WrittenFile[] = [];
  /** Finished parts already handed out by rotate(). */
  #handedOut = 0;
  readonly #firstPart: number;
  readonly #onMember: ((member: GzipMember) => void) | undefined;
  #part: GzipPartFile | undefined;
  readonly #textCopy: boolean;
  #text: TextCopy | undefined;
  /** Lines of each batch handed to the part being written and not yet reported as a member. */
  #memberLines: number[] = [];
  #rows = 0;
  /** Lines in the batch being filled. */
  #batchRows = 0;
  #bytes = 0;
  #batch: Buffer = NO_BATCH;
  /** Batches gzip has finished reading, for the next ones (see #newBatch). */
  readonly #spares: Buffer[] = [];
  #used = 0;
  #closed = false;
  #folderReady: Promise<string | undefined> | undefined;

  constructor(options: PartWriterOptions) {
    this.#folder = resolve(options.dir, options.name);
    this.#name = options.name;
    this.#format = options.format;
    this.#extension = options.extension;
    this.#maxRows = options.maxRowsPerPart ?? DEFAULT_MAX_ROWS_PER_PART;
    this.#maxBytes = options.maxBytesPerPart ?? DEFAULT_MAX_BYTES_PER_PART;
    this.#level = options.gzipLevel ?? DEFAULT_GZIP_LEVEL;
    this.#firstPart = options.firstPart ?? 0;
    this.#onMember = options.onMember;
    this.#textCopy = options.textCopy ?? false;
  }

  /** Lines in the part being written. */
  get partRows(): number {
    return this.#rows;
  }

  /** Text bytes (before compression) in the part being written. */
  get partBytes(): number {
    return this.#bytes + this.#used;
  }

  /** Where the next line goes: the number of its part and its line number there (1 for the first line). */
  get nextLine(): { part: number; line: number } {
    return { part: this.#firstPart + this.#written.length, line: this.#rows + 1 };
  }

  /**
   * Finishes the part being written (if it has lines, or `evenIfEmpty`) and hands out every part finished since the
   * last call, so a caller can commit parts while writing goes on into the next one.
   */
  async rotate(evenIfEmpty = false): Promise<WrittenFile[]> {
    if (this.#closed) throw new SinkError('ERR_SINK_CLOSED', `${this.#folder}: rotate after close`);
    if (this.#rows > 0 || evenIfEmpty) await this.#finishPart();
    return this.#handOut();
  }

  /** One line: text (encoded as UTF-8) or bytes (copied as they are). */
  async writeLine(line: string | Buffer): Promise<void> {
    if (this.#closed) throw new SinkError('ERR_SINK_CLOSED', `${this.#folder}: write after close`);
    // UTF-8 takes at most 3 bytes per UTF-16 unit, so a line given this much room is never cut short.
    const room = typeof line === 'string' ? line.length * 3 + 1 : line.length + 1;
    if (this.#used + room > this.#batch.length) {
      await this.#flush();
      if (room > this.#batch.length) this.#batch = this.#newBatch(room);
    }
    this.#used += typeof line === 'string' ? this.#batch.write(line, this.#used) : line.copy(this.#batch, this.#used);
    this.#batch[this.#used++] = 10;
    await this.#added(1);
  }

  /**
   * Whole lines at once, each already ending in '\n' (e.g. a LineEncoder's), copied as they are before the promise
   * is returned. The part is closed after the chunk that reaches a limit.
   */
  async writeLines(lines: Buffer, count: number): Promise<void> {
    if (this.#closed) throw new SinkError('ERR_SINK_CLOSED', `${this.#folder}: write after close`);
    // Copied before any wait: the caller may reuse its buffer as soon as this returns.
    let flushed: Promise<void> | undefined;
    if (this.#used + lines.length > this.#batch.length) {
      flushed = this.#flush();
      this.#batch = this.#newBatch(lines.length);
    }
    this.#used += lines.copy(this.#batch, this.#used);
    await flushed;
    await this.#added(count);
  }

  async #added(lines: number): Promise<void> {
    this.#rows += lines;
    this.#batchRows += lines;
    if (this.#rows >= this.#maxRows || this.#bytes + this.#used >= this.#maxBytes) await this.#finishPart();
  }

  async close(): Promise<WrittenFile[]> {
    if (this.#closed) throw new SinkError('ERR_SINK_CLOSED', `${this.#folder}: closed twice`);
    if (this.#rows > 0 || this.#written.length === 0) await this.#finishPart();
    this.#closed = true;
    return this.#handOut();
  }

  #handOut(): WrittenFile[] {
    const parts = this.#written.slice(this.#handedOut);
    this.#handedOut = this.#written.length;
    return parts;
  }

  async abort(): Promise<void> {
    this.#closed = true;
    this.#batch = NO_BATCH;
    this.#used = 0;
    await Promise.all([this.#part?.discard(), this.#text?.discard()]);
    this.#part = undefined;
    this.#text = undefined;
  }

  /**
   * A buffer for the next lines: a spare one gzip is done with, or a new one. Reusing them matters: V8 counts buffers
   * as external memory and answers a steady stream of new ones with full garbage collections.
   */
  #newBatch(room: number): Buffer {
    if (room <= BATCH_BYTES) return this.#spares.pop() ?? Buffer.allocUnsafe(BATCH_BYTES);
    return Buffer.allocUnsafe(room);
  }

  async #flush(): Promise<void> {
    // The batch is taken at once: gzip reads it later, on the thread pool, and the next lines go into a new buffer.
    const whole = this.#batch;
    const batch = whole.subarray(0, this.#used);
    const rows = this.#batchRows;
    this.#batch = NO_BATCH;
    this.#used = 0;
    this.#batchRows = 0;
    this.#bytes += batch.length;
    if (this.#part === undefined) {
      this.#folderReady ??= mkdir(this.#folder, { recursive: true });
      await this.#folderReady;
      this.#part = this.#openPart();
      if (this.#textCopy) this.#text = new TextCopy(this.#part.path);
    }
    if (batch.length === 0) return;
    this.#memberLines.push(rows);
    let readers = this.#text === undefined ? 1 : 2;
    const consumed = () => {
      if (--readers === 0 && whole.length === BATCH_BYTES && this.#spares.length < SPARE_BATCHES) {
        this.#spares.push(whole);
      }
    };
    await Promise.all([this.#part.write(batch, consumed), this.#text?.write(batch, consumed)]);
    crashPoint('mid-file');
  }

  #openPart(): GzipPartFile {
    const path = join(this.#folder, partName(this.#firstPart + this.#written.length, this.#extension));
    const report = this.#onMember;
    if (report === undefined) return new GzipPartFile(path, this.#level);
    const lines: number[] = [];
    this.#memberLines = lines;
    // A part without lines gets one empty member, which holds none.
    return new GzipPartFile(path, this.#level, (offset) => report({ offset, lines: lines.shift() ?? 0 }));
  }

  async #finishPart(): Promise<void> {
    await this.#flush();
    const part = this.#part as GzipPartFile;
    const text = this.#text;
    this.#part = undefined;
    this.#text = undefined;
    const rows = this.#rows;
    this.#rows = 0;
    this.#bytes = 0;
    const [file, textPath] = await Promise.all([part.finish(), text?.finish()]);
    this.#written.push({
      ...file,
      table: this.#name,
      format: this.#format,
      rows,
      ...(textPath !== undefined && { text: textPath }),
    });
  }
}
