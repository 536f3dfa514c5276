import type { ResourceName } from '../shopify/resources.js';
import { SinkError } from './errors.js';
import { type PartLimits, PartWriter } from './part-writer.js';
import type { WrittenFile } from './written-file.js';

const LINE_BREAK = /[\r\n]/g;
const NEWLINE = 10;
const CARRIAGE_RETURN = 13;

/**
 * The lossless archive: every record's text exactly as the API served it, one record a line, in gzip parts
 * `<dir>/<resource>/part-NNNNN.jsonl.gz`. Shopify serves compact JSON, so a record is one line already. Should a
 * server ever pretty-print, its line breaks can only be whitespace between tokens (JSON escapes them inside strings),
 * so they are removed: the record's value, big ids included, stays identical.
 */
export class RawArchiveWriter {
  readonly #parts: PartWriter;

  constructor(options: { dir: string; resource: ResourceName } & PartLimits) {
    this.#parts = new PartWriter({ ...options, name: options.resource, format: 'raw', extension: 'jsonl.gz' });
  }

  /** One record's bytes (UTF-8) as served. */
  write(raw: Buffer): Promise<void> {
    const line =
      raw.includes(NEWLINE) || raw.includes(CARRIAGE_RETURN)
        ? Buffer.from(raw.toString('utf8').replace(LINE_BREAK, ''))
        : raw;
    if (line[0] !== 123 /* { */) {
      return Promise.reject(
        new SinkError('ERR_SINK_RAW_RECORD', `a raw record must be a JSON object: ${line.toString('utf8', 0, 40)}`),
      );
    }
    return this.#parts.writeLine(line);
  }

  close(): Promise<WrittenFile[]> {
    return this.#parts.close();
  }

  abort(): Promise<void> {
    return this.#parts.abort();
  }

  /** See PartWriter.rotate. */
  rotate(evenIfEmpty = false): Promise<WrittenFile[]> {
    return this.#parts.rotate(evenIfEmpty);
  }

  /** The part being written, for callers that decide when to rotate. */
  get part(): { rows: number; bytes: number } {
    return { rows: this.#parts.partRows, bytes: this.#parts.partBytes };
  }
}
