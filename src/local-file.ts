import { createHash } from 'node:crypto';
import type { WriteStream } from 'node:fs';
import { open, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { getSystemErrorMap } from 'node:util';

/** Flushes a file, or a directory after a rename in it, to disk. */
export async function fsyncPath(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Writes a small file whole or not at all: a temp file beside it, flushed, renamed over it, the directory flushed. A
 * crash leaves the old file or the new one, never a part; a failure is a LocalFileError naming the file.
 */
export async function writeFileDurably(path: string, text: string): Promise<void> {
  const temp = `${path}.tmp`;
  try {
    await writeFile(temp, text, { mode: 0o600 });
    await fsyncPath(temp);
    await rename(temp, path);
    await fsyncPath(dirname(path));
  } catch (error) {
    throw writeError(error, path);
  }
}

/**
 * Stops a file stream and resolves once its file is closed. A stream still opening its file creates it after
 * destroy() returns, so a temp file removed before 'close' could be created again behind the remover's back.
 */
export async function destroyAndClose(stream: WriteStream): Promise<void> {
  if (stream.closed) return;
  const closed = new Promise<void>((resolve) => stream.once('close', () => resolve()));
  stream.destroy();
  await closed;
}

/** Size and hex sha256 of a file as it is on disk, read back in full (never taken from a writer's counters). */
export async function hashFile(path: string): Promise<{ sha256: string; bytes: number }> {
  const hash = createHash('sha256');
  let bytes = 0;
  await readChunks(path, async (chunk) => {
    bytes += chunk.length;
    hash.update(chunk);
  });
  return { sha256: hash.digest('hex'), bytes };
}

const READ_BYTES = 1024 * 1024;
/**
 * Read buffers kept for the next reads: each read would otherwise allocate one, and V8 answers a steady stream of
 * fresh buffers (external memory to it) with full garbage collections.
 */
const spareReadBuffers: Buffer[] = [];
const SPARE_READ_BUFFERS = 4;

/**
 * Reads a file from start to end in chunks of up to 1 MiB, each handed to `take` before the next is read into the
 * same buffer (so `take` must be done with it when its promise resolves).
 */
export async function readChunks(path: string, take: (chunk: Buffer) => Promise<void>): Promise<void> {
  const buffer = spareReadBuffers.pop() ?? Buffer.allocUnsafe(READ_BYTES);
  try {
    const handle = await open(path, 'r');
    try {
      for (;;) {
        const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
        if (bytesRead === 0) return;
        await take(buffer.subarray(0, bytesRead));
      }
    } finally {
      await handle.close();
    }
  } finally {
    if (spareReadBuffers.length < SPARE_READ_BUFFERS) spareReadBuffers.push(buffer);
  }
}

/**
 * A local file that could not be written, named: Node's errors from write(2) and fsync(2) name no file. `code` is the
 * errno's ('ENOSPC', 'EACCES', …), so the CLI classifies it like any other file-system error that carries a path.
 */
export class LocalFileError extends Error {
  override name = 'LocalFileError';
  constructor(
    readonly path: string,
    readonly code: string,
    options: { cause: unknown },
  ) {
    super(`cannot write ${path}: ${describeErrno(code)}`, options);
  }
}

/** A Node file-system error met while writing `path`, as a LocalFileError; any other error as it is. */
export function writeError(error: unknown, path: string): unknown {
  const code = errnoCode(error);
  return code === undefined ? error : new LocalFileError(path, code, { cause: error });
}

/** The errno code of a Node system error ('ENOSPC'); undefined for any other error (zlib's codes, Node's ERR_…). */
export function errnoCode(error: unknown): string | undefined {
  const { code, syscall } = (error ?? {}) as NodeJS.ErrnoException;
  return typeof code === 'string' && typeof syscall === 'string' ? code : undefined;
}

/** Why a file operation failed, in words: the system's for a Node system error, else the error's message. */
export function fileErrorReason(error: unknown): string {
  const code = errnoCode(error);
  return code === undefined ? String((error as Error)?.message ?? error) : describeErrno(code);
}

/** Where libuv's words say less than the C library's ("illegal operation on a directory" for reading one). */
const PLAINER_WORDS: Readonly<Record<string, string>> = { EISDIR: 'is a directory' };

/** 'no space left on device (ENOSPC)': the system's words for an errno code. */
export function describeErrno(code: string): string {
  const plainer = PLAINER_WORDS[code];
  if (plainer !== undefined) return `${plainer} (${code})`;
  for (const [name, description] of getSystemErrorMap().values()) {
    if (name === code) return `${description} (${code})`;
  }
  return code;
}
