// @ts-check
/**
 * Test-only preload (`node --import`, see full-disk.ts): a file system that fills up, for a real shopsnap process and
 * without root or a mount. Files whose absolute path matches the `paths` regexp of TEST_SHOPSNAP_FULL_DISK share
 * `capacityBytes`; once they are used up, writes fail as the kernel fails them: a short write, then ENOSPC in Node's
 * own error shape (write(2) names no path, copyfile names both). Deleting files frees nothing: a disk that only fills.
 *
 * It covers every way shopsnap writes a local file: write streams (fs.open + fs.write/writev), FileHandle writes
 * (fs/promises open), fs/promises copyFile, and DuckDB's native COPY … TO, which never goes through node:fs: once the
 * space is used up, its target is made a symlink to /dev/full (Linux), so DuckDB's own write fails with ENOSPC.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import { syncBuiltinESMExports } from 'node:module';
import { constants } from 'node:os';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DuckDBConnection } from '@duckdb/node-api';

const spec = process.env.TEST_SHOPSNAP_FULL_DISK;
if (spec !== undefined && spec !== '') await install(JSON.parse(spec));

/** @param {{ paths: string, capacityBytes: number }} options */
async function install({ paths, capacityBytes }) {
  const pattern = new RegExp(paths);
  let free = capacityBytes;
  /** @param {unknown} path */
  const onDisk = (path) => typeof path === 'string' && pattern.test(resolve(path));
  /** How much of `wanted` bytes fits, taken from the free space. */
  const take = (/** @type {number} */ wanted) => {
    const granted = Math.min(wanted, free);
    free -= granted;
    return granted;
  };

  /**
   * Node's uvException for ENOSPC.
   * @param {string} syscall
   * @param {string} [path]
   * @param {string} [dest]
   */
  const noSpace = (syscall, path, dest) => {
    const paths = (path === undefined ? '' : ` '${path}'`) + (dest === undefined ? '' : ` -> '${dest}'`);
    return Object.assign(new Error(`ENOSPC: no space left on device, ${syscall}${paths}`), {
      errno: -constants.errno.ENOSPC,
      code: 'ENOSPC',
      syscall,
      ...(path === undefined ? {} : { path }),
      ...(dest === undefined ? {} : { dest }),
    });
  };

  // Write streams: fs.open(path, flags, mode, callback), then fs.write(fd, buffer, offset, length, position, callback)
  // and fs.writev(fd, buffers, position, callback). Patched through `any`: they are overloaded.
  /** @type {any} */
  const callbackFs = fs;
  const { open, close, write, writev } = callbackFs;
  /** @type {Set<number>} */
  const fds = new Set();
  callbackFs.open = (/** @type {any[]} */ ...args) => {
    const callback = args.pop();
    open(...args, (/** @type {Error | null} */ error, /** @type {number} */ fd) => {
      if (error === null && onDisk(args[0])) fds.add(fd);
      callback(error, fd);
    });
  };
  callbackFs.close = (/** @type {number} */ fd, /** @type {any[]} */ ...rest) => {
    fds.delete(fd);
    close(fd, ...rest);
  };
  callbackFs.write = (/** @type {any[]} */ ...args) => {
    const [fd, buffer, offset, length, position, callback] = args;
    if (!fds.has(fd)) return write(...args);
    if (!ArrayBuffer.isView(buffer) || typeof callback !== 'function') {
      throw new Error('full-disk preload: only fs.write(fd, buffer, offset, length, position, callback) is simulated');
    }
    const granted = take(length);
    if (granted === 0) process.nextTick(callback, noSpace('write'));
    else write(fd, buffer, offset, granted, position, callback);
  };
  callbackFs.writev = (/** @type {number} */ fd, /** @type {Buffer[]} */ buffers, /** @type {any[]} */ ...rest) => {
    const callback = rest.pop();
    if (!fds.has(fd)) return writev(fd, buffers, ...rest, callback);
    let granted = take(buffers.reduce((sum, buffer) => sum + buffer.length, 0));
    if (granted === 0) return process.nextTick(callback, noSpace('write'));
    /** @type {Buffer[]} */
    const fitting = [];
    for (const buffer of buffers) {
      const bytes = buffer.subarray(0, granted);
      if (bytes.length > 0) fitting.push(bytes);
      granted -= bytes.length;
    }
    writev(fd, fitting, ...rest, callback);
  };

  // FileHandle writes: the handle's path is known from fs/promises open.
  /** @type {any} */
  const promisesFs = fsp;
  const { open: openHandle, copyFile } = promisesFs;
  /** @type {WeakSet<object>} */
  const handles = new WeakSet();
  promisesFs.open = async (/** @type {unknown} */ path, /** @type {any[]} */ ...rest) => {
    const handle = await openHandle(path, ...rest);
    if (onDisk(path)) handles.add(handle);
    return handle;
  };
  const probe = await fsp.open(fileURLToPath(import.meta.url), 'r');
  /** @type {any} */
  const fileHandle = Object.getPrototypeOf(probe);
  await probe.close();
  const { writeFile, write: writeHandle } = fileHandle;
  fileHandle.writeFile = async function (/** @type {unknown} */ data, /** @type {any[]} */ ...rest) {
    if (!handles.has(this)) return writeFile.call(this, data, ...rest);
    if (!ArrayBuffer.isView(data)) throw new Error('full-disk preload: only FileHandle.writeFile(bytes) is simulated');
    const granted = take(data.byteLength);
    if (granted === data.byteLength) return writeFile.call(this, data, ...rest);
    await writeHandle.call(this, data, 0, granted);
    throw noSpace('write');
  };
  fileHandle.write = function (/** @type {any[]} */ ...args) {
    if (!handles.has(this)) return writeHandle.apply(this, args);
    throw new Error('full-disk preload: FileHandle.write is not simulated');
  };

  promisesFs.copyFile = async (
    /** @type {string} */ source,
    /** @type {string} */ target,
    /** @type {any[]} */ ...rest
  ) => {
    if (!onDisk(target)) return copyFile(source, target, ...rest);
    const bytes = await fsp.readFile(source);
    const granted = take(bytes.length);
    if (granted === bytes.length) return copyFile(source, target, ...rest);
    await fsp.writeFile(target, bytes.subarray(0, granted));
    throw noSpace('copyfile', source, target);
  };

  // DuckDB writes `COPY (…) TO '<path>'` natively; /dev/full makes that write fail with the kernel's ENOSPC.
  const run = DuckDBConnection.prototype.run;
  DuckDBConnection.prototype.run = async function (/** @type {string} */ sql, /** @type {any[]} */ ...rest) {
    const target = /\)\s+TO\s+'((?:[^']|'')*)'/.exec(sql)?.[1]?.replaceAll("''", "'");
    if (target === undefined || !onDisk(target)) return run.call(this, sql, ...rest);
    if (free === 0) await fsp.symlink('/dev/full', target);
    const result = await run.call(this, sql, ...rest);
    take((await fsp.stat(target)).size);
    return result;
  };

  syncBuiltinESMExports();
}
