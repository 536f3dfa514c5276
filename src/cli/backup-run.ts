import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createLogger, type Logger } from '../log.js';
import { type OutputFormat, runBackup } from '../runner/backup.js';
import { OUTPUT_FORMATS } from '../runner/output-format.js';
import { ProgressBoard } from '../runner/progress-board.js';
import { RESOURCES, type ResourceName } from '../shopify/resources.js';
import { childProcessConverter, type ParquetConverter } from '../sink/parquet-converter.js';
import type { RecordRows, RecordRowsOptions } from '../sink/record-rows.js';
import { RowThread } from '../sink/row-thread.js';
import type { Manifest } from '../snapshot/manifest.js';
import { createStorage, type S3Settings } from '../storage/index.js';
import { EXIT, type ExitCode } from './exit-codes.js';
import { flag, wholeNumber } from './flags.js';
import { stderrLines } from './live-block.js';
import { attachProgress } from './progress.js';
import type { ShopAddress } from './shop-address.js';

export interface BackupRequest {
  shop: ShopAddress;
  token: string;
  out: string;
  resources: readonly ResourceName[];
  formats: readonly OutputFormat[];
  depth: number;
  s3: S3Settings;
  json: boolean;
  verbose: boolean;
  /** Start over instead of resuming an unfinished snapshot. */
  fresh?: boolean;
  /** A suspicious shrink is real (see BackupOptions.acceptShrink). */
  acceptShrink?: boolean;
  checkpointIntervalMs?: number;
  /** Seconds between progress lines off a terminal (--stats; default 30). */
  statsSeconds?: number;
}

/** What a backup reads and writes where: `backup` gives them defaults, `run` lets them override a job file. */
export const OUTPUT_FLAGS = {
  out: flag.string({ describe: 'Destination: a directory or s3://bucket/prefix', env: true }),
  resources: flag.list({ describe: 'Resources to back up', env: true, choices: RESOURCES }),
  formats: flag.list({ describe: 'Outputs', env: true, choices: OUTPUT_FORMATS }),
  depth: flag.number({
    describe: 'Most list requests in flight for the shop',
    env: true,
    check: wholeNumber(1, 100),
  }),
};

/** Pretty lines on a terminal (above the live display while it is shown), JSON lines otherwise. */
export function newCliLogger(request: { verbose: boolean }, secrets: readonly string[]): Logger {
  const terminal = process.stderr.isTTY === true;
  return createLogger({
    level: request.verbose ? 'debug' : 'info',
    pretty: terminal,
    terse: terminal && !request.verbose,
    secrets,
    ...(terminal ? { destination: stderrLines } : {}),
  });
}

/** rclone's --stats: progress lines off a terminal (a live display replaces them on one). */
export const STATS_FLAG = flag.number({
  describe:
    'Seconds between progress lines per resource (records, rate, ETA, unanswered requests) when stderr is not a ' +
    'terminal; 0: none. On a terminal the live display replaces them',
  env: true,
  default: 30,
  check: (seconds) => (seconds >= 0 ? undefined : 'must be 0 or more seconds'),
});

/** The --stats interval in ms for a backup logging to this stderr: none on a terminal (the live display shows it). */
export function statsIntervalMs(seconds: number): number {
  return process.stderr.isTTY === true ? 0 : seconds * 1000;
}

/** Runs one backup as the CLI does: progress on a TTY, location (or JSON) on stdout; the exit code and the location returned. */
export async function runBackupFromCli(
  request: BackupRequest,
  logger: Logger,
): Promise<{ exitCode: ExitCode; location: string }> {
  const storage = await createStorage(request.out, request.s3);
  const stagingRoot = stagingRootFor(request.out);
  const board = new ProgressBoard(request.resources);
  const progress = attachProgress(board);
  try {
    const result = await withBackupWorkers((workers) =>
      interruptible((signal) =>
        runBackup({
          shop: request.shop,
          token: request.token,
          storage,
          resources: request.resources,
          formats: request.formats,
          depth: request.depth,
          stagingRoot,
          logger,
          signal,
          board,
          statsIntervalMs: statsIntervalMs(request.statsSeconds ?? STATS_FLAG.default),
          fresh: request.fresh,
          acceptShrink: request.acceptShrink,
          parts:
            request.checkpointIntervalMs === undefined ? {} : { checkpointIntervalMs: request.checkpointIntervalMs },
          ...workers,
        }),
      ),
    );
    progress.finish(result.manifest);
    if (request.json) {
      process.stdout.write(`${JSON.stringify({ location: result.location, manifest: result.manifest }, null, 2)}\n`);
    } else {
      process.stdout.write(`${result.location}\n`);
    }
    return { exitCode: exitCodeOf(result.manifest), location: result.location };
  } catch (error) {
    progress.finish(undefined);
    throw error;
  }
}

/** What backups share beside the thread that crawls, in the CLI (see withBackupWorkers). */
export interface BackupWorkers {
  parquetConverter: ParquetConverter;
  openRows: (options: RecordRowsOptions) => RecordRows;
}

/**
 * Runs `work` with a Parquet converter in a child process and a thread for the table rows, both ended afterwards.
 * DuckDB's memory (about 150 MB while a part of the 200-column orders table converts) then never adds to the
 * crawler's process, and is returned whole; the crawl's thread only scans pages and archives records while the other
 * flattens them (see RowThread).
 */
export async function withBackupWorkers<T>(work: (workers: BackupWorkers) => Promise<T>): Promise<T> {
  const parquetConverter = childProcessConverter();
  const rowThread = new RowThread();
  try {
    return await work({ parquetConverter, openRows: (options) => rowThread.open(options) });
  } finally {
    await Promise.all([parquetConverter.close(), rowThread.close()]);
  }
}

/**
 * Runs `work` with a signal that SIGINT/SIGTERM abort: work stops starting requests and no manifest is written. An
 * aborted run surfaces as an AbortError (exit 130) whatever error the interruption caused underneath.
 */
export async function interruptible<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const stop = () => controller.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    return await work(controller.signal);
  } catch (error) {
    if (controller.signal.aborted) {
      const interrupted = new Error('interrupted', { cause: error });
      interrupted.name = 'AbortError';
      throw interrupted;
    }
    throw error;
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  }
}

export function stagingRootFor(out: string): string {
  return out.startsWith('s3://') ? join(tmpdir(), 'shopsnap-staging') : join(resolve(out), '.staging');
}

export function exitCodeOf(manifest: Manifest): ExitCode {
  if (manifest.status === 'complete') return EXIT.complete;
  return manifest.suspicious_shrink === undefined ? EXIT.countMismatch : EXIT.suspiciousShrink;
}
