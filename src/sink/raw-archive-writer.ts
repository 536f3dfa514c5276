import { hash } from 'node:crypto';
import type { ResourceName } from '../shopify/resources.js';
import { SinkError } from './errors.js';
import { type GzipMember, type PartLimits, PartWriter } from './part-writer.js';
import type { IndexedRecord, RecordIndexWriter } from './record-index-writer.js';
import type { WrittenFile } from './written-file.js';

const LINE_BREAK = /[\r\n]/g;
const NEWLINE = 10;
const CARRIAGE_RETURN = 13;

/**
 * A record's line in the raw archive: its bytes as served. Shopify serves compact JSON, so a record is one line
 * already. Should a server ever pretty-print, its line breaks can only be whitespace between tokens (JSON escapes them
 * inside strings), so they are removed: the record's value, big ids included, stays identical. Rejects anything but
 * a JSON object.
 */
export function rawLine(raw: Buffer): Buffer {
  const line =
    raw.includes(NEWLINE) || raw.includes(CARRIAGE_RETURN)
      ? Buffer.from(raw.toString('utf8').replace(LINE_BREAK, ''))
      : raw;
  if (line[0] !== 123 /* { */) {
    throw new SinkError('ERR_SINK_RAW_RECORD', `a raw record must be a JSON object: ${line.toString('utf8', 0, 40)}`);
  }
  return line;
}

/** Hex sha256 of a record's line: what the record index keeps of its text. */
export function lineSha256(line: Buffer): string {
  return hash('sha256', line, 'hex');
}

interface Unplaced {
  record: IndexedRecord;
  sha256: string;
  part: number;
  line: number;
}

/**
 * The lossless archive: every record's line (see rawLine), one a line, in gzip parts
 * `<dir>/<resource>/part-NNNNN.jsonl.gz`. With a record index, each part is written in gzip members of about 256 KiB
 * and every record gets its index row (id, updated_at, sha256 of its line, part, line, and the offset of the member
 * holding it) once its member is compressed; the index parts are finished with the archive's, so they describe
 * exactly the archive parts handed out with them.
 */
export class RawArchiveWriter {
  readonly #parts: PartWriter;
  readonly #index: RecordIndexWriter | undefined;
  /** Records written whose gzip member is not compressed yet, in line order. */
  readonly #unplaced: Unplaced[] = [];
  #indexing: Promise<void> = Promise.resolve();
  #indexFailure: { error: unknown } | undefined;

  constructor(options: { dir: string; resource: ResourceName; index?: RecordIndexWriter } & PartLimits) {
    const { index, ...limits } = options;
    this.#index = index;
    this.#parts = new PartWriter({
      ...limits,
      name: options.resource,
      format: 'raw',
      extension: 'jsonl.gz',
      ...(index === undefined ? {} : { onMember: (member: GzipMember) => this.#place(member) }),
    });
  }

  /** One record's bytes (UTF-8) as served; `record` (its id and updated_at) for the index. */
  write(raw: Buffer, record?: IndexedRecord): Promise<void> {
    if (this.#indexFailure) return Promise.reject(this.#indexFailure.error);
    let line: Buffer;
    try {
      line = rawLine(raw);
    } catch (error) {
      return Promise.reject(error);
    }
    if (this.#index !== undefined) {
      if (record === undefined) {
        return Promise.reject(new SinkError('ERR_SINK_RAW_RECORD', 'an indexed raw archive needs each record’s id'));
      }
      this.#unplaced.push({ record, sha256: lineSha256(line), ...this.#parts.nextLine });
    }
    return this.#parts.writeLine(line);
  }

  async close(): Promise<WrittenFile[]> {
    const archive = await this.#parts.close();
    return [...archive, ...(await this.#indexed(() => this.#index?.close()))];
  }

  async abort(): Promise<void> {
    await Promise.all([this.#parts.abort(), this.#index?.abort()]);
  }

  /** See PartWriter.rotate; the index's part is finished with the archive's. */
  async rotate(evenIfEmpty = false): Promise<WrittenFile[]> {
    const archive = await this.#parts.rotate(evenIfEmpty);
    return [...archive, ...(await this.#indexed(() => this.#index?.rotate(evenIfEmpty)))];
  }

  /** The part being written, for callers that decide when to rotate. */
  get part(): { rows: number; bytes: number } {
    return { rows: this.#parts.partRows, bytes: this.#parts.partBytes };
  }

  /** Once every member so far is placed in the index: the index's parts from `finish`. */
  async #indexed(finish: () => Promise<WrittenFile[]> | undefined): Promise<WrittenFile[]> {
    await this.#indexing;
    if (this.#indexFailure) throw this.#indexFailure.error;
    return (await finish()) ?? [];
  }

  /** A member is compressed: its records' index rows can be written, in order. */
  #place(member: GzipMember): void {
    const index = this.#index as RecordIndexWriter;
    const records = this.#unplaced.splice(0, member.lines);
    this.#indexing = this.#indexing.then(async () => {
      if (this.#indexFailure) return;
      try {
        for (const { record, sha256, part, line } of records) {
          await index.add(record, sha256, { part, line, offset: member.offset });
        }
      } catch (error) {
        this.#indexFailure = { error };
      }
    });
  }
}
