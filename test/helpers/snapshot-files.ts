import { createReadStream } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { createGunzip } from 'node:zlib';

/** Every file under `dir`, recursively, as absolute paths; none when `dir` is missing or not a directory. */
export async function filesUnder(dir: string): Promise<string[]> {
  if (!(await stat(dir).catch(() => undefined))?.isDirectory()) return [];
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
}

/** Every manifest.json under `dir`: a snapshot that exists. */
export async function manifestsUnder(dir: string): Promise<string[]> {
  return (await filesUnder(dir)).filter((path) => path.endsWith('/manifest.json'));
}

/** The lines of a gzip NDJSON or raw part, each without its '\n' (an empty line stays, as the defect it is). */
export async function gunzipLines(path: string): Promise<string[]> {
  const chunks: Buffer[] = [];
  for await (const chunk of createReadStream(path).pipe(createGunzip())) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8').split('\n').slice(0, -1);
}

/** Ids of a snapshot's raw archive of one resource, in file order, as exact strings (never through a float). */
export async function rawIds(location: string, resource: string): Promise<string[]> {
  const dir = join(location, 'raw', resource);
  const ids: string[] = [];
  for (const name of (await readdir(dir)).sort()) {
    for (const line of await gunzipLines(join(dir, name))) ids.push(/^\{"id":(\d+)/.exec(line)?.[1] ?? 'no id');
  }
  return ids;
}
