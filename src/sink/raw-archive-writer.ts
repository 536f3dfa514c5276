import type { ResourceName } from '../shopify/resources.js';
import { SinkError } from './errors.js';
import { type PartLimits, PartWriter } from './part-writer.js';
import type { WrittenFile } from './written-file.js';

const LINE_BREAK = /[\r\n]/g;

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

  write(raw: string): Promise<void> {
    const line = raw.includes('\n') || raw.includes('\r') ? raw.replace(LINE_BREAK, '') : raw;
    if (line.charCodeAt(0) !== 123 /* { */) {
      return Promise.reject(
        new SinkError('ERR_SINK_RAW_RECORD', `a raw record must be a JSON object: ${line.slice(0, 40)}`),
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
