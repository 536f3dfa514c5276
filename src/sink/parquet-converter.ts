import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { LocalFileError } from '../local-file.js';
import type { ChangeCounts } from '../snapshot/index-compare.js';
import type { Lineage, TableSchema } from '../transform/schema.js';
import { ReusedDuckDb, withDuckDb } from './duckdb.js';
import { SinkError, type SinkErrorCode } from './errors.js';
import type { FileFacts, FileFormat, WrittenFile } from './written-file.js';

/**
 * The DuckDB work of a backup: turns finished NDJSON parts into Parquet parts (see convertToParquet) and compares the
 * record indexes of two snapshots (see countChanges); and the re-read of every finished file (see rereadFile), which
 * in a process of its own takes its CPU and its stream of buffers off the crawl. A backup holds one for its whole run.
 *
 * Contract (test/sink/parquet-converter.test.ts runs it against both implementations): conversions and comparisons
 * run one at a time, in call order, so DuckDB's memory is needed once; re-reads do not wait for them. convert()
 * resolves to the Parquet part of the same rows, or rejects with the error convertToParquet gives
 * (SinkError, LocalFileError for a full disk); countChanges() resolves to the counts; reread() to what rereadFile
 * reads, or its SinkError; close() ends it, and a job after close() rejects with 'ERR_SINK_CLOSED'.
 */
export interface ParquetConverter {
  /** With `lineage`, every row ends with the lineage columns (a table's parts; record indexes have none). */
  convert(ndjson: WrittenFile, table: TableSchema, outDir: string, lineage?: Lineage): Promise<WrittenFile>;
  /** Compares two record indexes of one resource (local Parquet files), before and after. */
  countChanges(before: readonly string[], after: readonly string[]): Promise<ChangeCounts>;
  /** Reads a finished file back in full: its rows, size and sha256. */
  reread(path: string, format: FileFormat): Promise<Reread>;
  close(): Promise<void>;
}

export type Reread = Pick<FileFacts, 'rows' | 'bytes' | 'sha256'>;

/** One job, as it travels to the child. */
export type ConverterJob =
  | {
      kind: 'convert';
      ndjson: WrittenFile;
      /** What the conversion needs of the table's schema (tables and record indexes alike). */
      table: Pick<TableSchema, 'name' | 'resource' | 'columns'>;
      outDir: string;
      lineage?: Lineage;
    }
  | { kind: 'count-changes'; before: readonly string[]; after: readonly string[] }
  | { kind: 'reread'; path: string; format: FileFormat };

type JobResult<J extends ConverterJob> = J extends { kind: 'convert' }
  ? WrittenFile
  : J extends { kind: 'reread' }
    ? Reread
    : ChangeCounts;

/**
 * Runs one job in this process, a conversion on `duckdb`. DuckDB is loaded on first use: about 0.13 s of CPU, which a
 * worker then spends while its crawls wait on the network rather than before its first request (and an NDJSON-only
 * run never).
 */
async function runJob(job: ConverterJob, duckdb: ReusedDuckDb): Promise<WrittenFile | ChangeCounts | Reread> {
  if (job.kind === 'reread') {
    const { rereadFile } = await import('./count-rows.js');
    return rereadFile(job.path, job.format);
  }
  if (job.kind === 'convert') {
    const { convertToParquet } = await import('./parquet.js');
    return convertToParquet(job.ndjson, job.table, job.outDir, job.lineage ? { lineage: job.lineage } : {}, duckdb);
  }
  const { countChanges } = await import('../snapshot/index-compare.js');
  return withDuckDb({}, (connection) => countChanges(connection, job.before, job.after));
}

/** The job's work in words, for errors. */
function jobName(job: ConverterJob): string {
  if (job.kind === 'reread') return `re-reading ${job.path}`;
  return job.kind === 'convert' ? `converting ${job.ndjson.path} to Parquet` : 'comparing record indexes';
}

/** Both implementations, around `run` (which runs jobs one at a time, in call order): no job after close. */
function converterOf(run: (job: ConverterJob) => Promise<unknown>, close: () => Promise<void>): ParquetConverter {
  let closed = false;
  const start = <J extends ConverterJob>(job: J): Promise<JobResult<J>> =>
    closed
      ? Promise.reject(new SinkError('ERR_SINK_CLOSED', `${jobName(job)} after the converter was closed`))
      : (run(job) as Promise<JobResult<J>>);
  return {
    convert: (ndjson, table, outDir, lineage) =>
      start({
        kind: 'convert',
        ndjson,
        table: { name: table.name, resource: table.resource, columns: table.columns },
        outDir,
        ...(lineage === undefined ? {} : { lineage }),
      }),
    countChanges: (before, after) => start({ kind: 'count-changes', before, after }),
    reread: (path, format) => start({ kind: 'reread', path, format }),
    close: async () => {
      closed = true;
      await close();
    },
  };
}

export interface JobRunner {
  run(job: ConverterJob): Promise<WrittenFile | ChangeCounts | Reread>;
  /** Once the jobs started have ended, closes the conversions' DuckDB. */
  close(): Promise<void>;
}

/**
 * Runs jobs in this process: DuckDB's (conversions, index comparisons) one at a time in call order, so its memory is
 * needed once, the conversions on one DuckDB kept open between them (see ReusedDuckDb); re-reads at once, beside them
 * (a buffer and gunzip's window each).
 */
export function jobRunner(): JobRunner {
  const duckdb = new ReusedDuckDb();
  let previous: Promise<unknown> = Promise.resolve();
  return {
    run: (job) => {
      if (job.kind === 'reread') return runJob(job, duckdb);
      const done = previous.then(() => runJob(job, duckdb));
      previous = done.catch(() => undefined);
      return done;
    },
    close: async () => {
      await previous;
      await duckdb.close();
    },
  };
}

/** Runs the jobs in this process (see jobRunner). */
export function inProcessConverter(): ParquetConverter {
  const runner = jobRunner();
  return converterOf(runner.run, runner.close);
}

/** What the child sends back for one request. */
export type ConversionReply =
  | { id: number; value: WrittenFile | ChangeCounts | Reread }
  | { id: number; error: { message: string; code?: string; path?: string; kind: 'sink' | 'file' | 'other' } };

export interface ConversionRequest {
  id: number;
  job: ConverterJob;
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
  let nextId = 0;
  const pending = new Map<
    number,
    { job: ConverterJob; resolve: (value: unknown) => void; reject: (error: unknown) => void }
  >();

  const start = (): ChildProcess => {
    const started = fork(script, [], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'], serialization: 'advanced' });
    exited = new Promise((resolve) => started.once('exit', () => resolve()));
    started.on('message', (reply: ConversionReply) => {
      const request = pending.get(reply.id);
      if (request === undefined) return;
      pending.delete(reply.id);
      if ('value' in reply) request.resolve(reply.value);
      else request.reject(replyError(reply.error));
    });
    const failAll = (reason: string) => {
      if (child === started) child = undefined;
      for (const [id, request] of pending) {
        pending.delete(id);
        request.reject(new SinkError('ERR_SINK_PARQUET', `${jobName(request.job)} failed: ${reason}`));
      }
    };
    started.on('error', (error) => failAll(`the converter process failed: ${error.message}`));
    started.on('exit', (code, signal) =>
      failAll(`the converter process ended (${signal ?? `exit code ${code}`}) before it answered`),
    );
    return started;
  };

  const run = (job: ConverterJob) => {
    child ??= start();
    const id = nextId++;
    return new Promise<unknown>((resolve, reject) => {
      pending.set(id, { job, resolve, reject });
      child?.send({ id, job } satisfies ConversionRequest);
    });
  };
  return converterOf(run, async () => {
    if (child?.connected) child.disconnect();
    child = undefined;
    await exited;
  });
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
