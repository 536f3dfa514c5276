import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { LocalFileError } from '../local-file.js';
import type { TableSchema } from '../transform/schema.js';
import { SinkError, type SinkErrorCode } from './errors.js';
import type { WrittenFile } from './written-file.js';

/**
 * Turns finished NDJSON parts into Parquet parts (see convertToParquet). A backup holds one for its whole run.
 *
 * Contract (test/sink/parquet-converter.test.ts runs it against both implementations): conversions run one at a time,
 * in call order, so DuckDB's memory is needed once; convert() resolves to the Parquet part of the same rows, or rejects
 * with the error convertToParquet gives (SinkError, LocalFileError for a full disk); close() ends it, and a convert()
 * after close() rejects with 'ERR_SINK_CLOSED'.
 */
export interface ParquetConverter {
  convert(ndjson: WrittenFile, table: TableSchema, outDir: string): Promise<WrittenFile>;
  close(): Promise<void>;
}

/**
 * Converts in this process. DuckDB is loaded on first use: about 0.25 s of CPU, which a worker then spends while its
 * crawls wait on the network rather than before its first request (and an NDJSON-only run never).
 */
export function inProcessConverter(): ParquetConverter {
  let closed = false;
  let previous: Promise<unknown> = Promise.resolve();
  return {
    convert(ndjson, table, outDir) {
      if (closed) return Promise.reject(closedError(ndjson));
      const converted = previous.then(async () => {
        const { convertToParquet } = await import('./parquet.js');
        return convertToParquet(ndjson, table, outDir);
      });
      previous = converted.catch(() => undefined);
      return converted;
    },
    async close() {
      closed = true;
    },
  };
}

/** What the child sends back for one request. */
export type ConversionReply =
  | { id: number; file: WrittenFile }
  | { id: number; error: { message: string; code?: string; path?: string; kind: 'sink' | 'file' | 'other' } };

export interface ConversionRequest {
  id: number;
  ndjson: WrittenFile;
  table: string;
  outDir: string;
}

const CHILD = fileURLToPath(new URL('./parquet-child.js', import.meta.url));

/**
 * Converts in a child process (parquet-child.ts), one part at a time. DuckDB needs about 150 MB of its own for a part
 * of the 200-column orders table; in a process of its own that memory is returned whole when the conversion ends,
 * and the crawler's heap never shares an allocator with it. The child is started on first use and inherits Node's
 * flags and environment; it exits when this process closes it or goes away (its IPC channel closes).
 * Only runnable from the built JavaScript (the child is dist/sink/parquet-child.js).
 */
export function childProcessConverter(script = CHILD): ParquetConverter {
  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();
  let closed = false;
  let nextId = 0;
  const pending = new Map<
    number,
    { ndjson: WrittenFile; resolve: (file: WrittenFile) => void; reject: (error: unknown) => void }
  >();

  const start = (): ChildProcess => {
    const started = fork(script, [], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'], serialization: 'advanced' });
    exited = new Promise((resolve) => started.once('exit', () => resolve()));
    started.on('message', (reply: ConversionReply) => {
      const request = pending.get(reply.id);
      if (request === undefined) return;
      pending.delete(reply.id);
      if ('file' in reply) request.resolve(reply.file);
      else request.reject(replyError(reply.error));
    });
    const failAll = (reason: string) => {
      if (child === started) child = undefined;
      for (const [id, request] of pending) {
        pending.delete(id);
        request.reject(
          new SinkError('ERR_SINK_PARQUET', `converting ${request.ndjson.path} to Parquet failed: ${reason}`),
        );
      }
    };
    started.on('error', (error) => failAll(`the converter process failed: ${error.message}`));
    started.on('exit', (code, signal) =>
      failAll(`the converter process ended (${signal ?? `exit code ${code}`}) before it answered`),
    );
    return started;
  };

  return {
    convert(ndjson, table, outDir) {
      if (closed) return Promise.reject(closedError(ndjson));
      child ??= start();
      const id = nextId++;
      const request: ConversionRequest = { id, ndjson, table: table.name, outDir };
      return new Promise<WrittenFile>((resolve, reject) => {
        pending.set(id, { ndjson, resolve, reject });
        child?.send(request);
      });
    },
    async close() {
      closed = true;
      if (child?.connected) child.disconnect();
      child = undefined;
      await exited;
    },
  };
}

function closedError(ndjson: WrittenFile): SinkError {
  return new SinkError('ERR_SINK_CLOSED', `converting ${ndjson.path} after the converter was closed`);
}

/** An error as the child can send it: structured clone keeps only the message, so its class travels as data. */
export function errorForReply(error: unknown): Extract<ConversionReply, { error: unknown }>['error'] {
  const message = (error as Error).message ?? String(error);
  if (error instanceof SinkError) return { kind: 'sink', code: error.code, message };
  if (error instanceof LocalFileError) return { kind: 'file', code: error.code, path: error.path, message };
  return { kind: 'other', message };
}

function replyError(error: Extract<ConversionReply, { error: unknown }>['error']): Error {
  const cause = new Error(error.message);
  if (error.kind === 'file') return new LocalFileError(error.path as string, error.code as string, { cause });
  if (error.kind === 'sink') return new SinkError(error.code as SinkErrorCode, error.message, { cause });
  return new SinkError('ERR_SINK_PARQUET', error.message, { cause });
}
