import { open } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { describeErrno, LocalFileError, writeError } from '../src/local-file.js';

/** A real error of write(2) from Node: it names no file. */
async function realWriteError(): Promise<unknown> {
  const handle = await open(fileURLToPath(import.meta.url), 'r');
  try {
    await handle.write('x');
  } catch (error) {
    return error;
  } finally {
    await handle.close();
  }
  throw new Error('writing to a read-only descriptor succeeded');
}

function thrown(work: () => unknown): unknown {
  try {
    work();
  } catch (error) {
    return error;
  }
  throw new Error('did not throw');
}

const ENOSPC_ON_WRITE = Object.assign(new Error('ENOSPC: no space left on device, write'), {
  errno: -28,
  code: 'ENOSPC',
  syscall: 'write',
});

describe('writeError', () => {
  it.each([
    ['ENOSPC from write(2)', () => ENOSPC_ON_WRITE, 'cannot write /s/part.gz: no space left on device (ENOSPC)'],
    ['a real EBADF from Node', realWriteError, 'cannot write /s/part.gz: bad file descriptor (EBADF)'],
  ])('names the file of a Node file-system error: %s', async (_name, error, message) => {
    const named = writeError(await error(), '/s/part.gz');
    expect(named).toBeInstanceOf(LocalFileError);
    expect((named as LocalFileError).message).toBe(message);
    expect((named as LocalFileError).path).toBe('/s/part.gz');
  });

  it.each([
    ['a zlib error (a code and an errno, no syscall)', thrown(() => gunzipSync(Buffer.from('not gzip')))],
    ['a plain error', new Error('boom')],
    ['not an error', 'boom'],
  ])('leaves any other error as it is: %s', (_name, error) => {
    expect(writeError(error, '/s/part.gz')).toBe(error);
  });
});

describe('describeErrno', () => {
  it.each([
    ['ENOSPC', 'no space left on device (ENOSPC)'],
    ['EACCES', 'permission denied (EACCES)'],
    ['ENOENT', 'no such file or directory (ENOENT)'],
    ['EISDIR', 'is a directory (EISDIR)'],
    ['ENOT_AN_ERRNO', 'ENOT_AN_ERRNO'],
  ])('%s → %s', (code, words) => {
    expect(describeErrno(code)).toBe(words);
  });
});
