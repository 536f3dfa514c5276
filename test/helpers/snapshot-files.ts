import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createGunzip, gunzipSync, gzipSync } from 'node:zlib';
import { expect } from 'vitest';
import { sqlString, withDuckDb } from '../../src/sink/duckdb.js';
import { type Manifest, serializeManifest } from '../../src/snapshot/manifest.js';

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

export interface IndexRow {
  id: string;
  updated_at: string | null;
  sha256: string;
  part: number | null;
  line: number | null;
  gzip_offset: number | null;
}

/** A snapshot's record index of one resource, read by DuckDB from the Parquet files its manifest lists. */
export async function readRecordIndex(location: string, resource: string): Promise<IndexRow[]> {
  const manifest = JSON.parse(await readFile(join(location, 'manifest.json'), 'utf8'));
  const files: string[] = manifest.files
    .filter((file: { format: string; table: string }) => file.format === 'index' && file.table === resource)
    .map((file: { path: string }) => sqlString(join(location, file.path)));
  return withDuckDb({}, async (db) => {
    await db.run(`SET TimeZone = 'UTC'`);
    const result = await db.runAndReadAll(
      `SELECT id::VARCHAR AS id, strftime(updated_at, '%Y-%m-%dT%H:%M:%SZ') AS updated_at, sha256, part, line::INTEGER AS line,
              gzip_offset::INTEGER AS gzip_offset
       FROM read_parquet([${files.join(', ')}])`,
    );
    return result.getRowObjectsJS() as unknown as IndexRow[];
  });
}

/**
 * Checks a snapshot's record index against its raw archive, independently of shopsnap's readers: one row per line,
 * each at its part and line with the sha256 of that line's bytes and the line's id; and every gzip offset the start of
 * a member that, decompressed alone, holds exactly the lines indexed with that offset.
 */
export async function expectIndexMatchesArchive(location: string, resource: string): Promise<void> {
  const rows = await readRecordIndex(location, resource);
  const dir = join(location, 'raw', resource);
  let lines = 0;
  for (const name of (await readdir(dir)).sort()) {
    const part = Number(/part-(\d+)/.exec(name)?.[1]);
    const file = await readFile(join(dir, name));
    const here = rows.filter((row) => row.part === part).sort((a, b) => (a.line as number) - (b.line as number));
    const whole = splitLines(gunzipSync(file));
    expect(
      here.map((row) => row.line),
      `${name}: one row per line`,
    ).toEqual(whole.map((_, i) => i + 1));
    const offsets = [...new Set(here.map((row) => row.gzip_offset as number))].sort((a, b) => a - b);
    if (whole.length > 0) expect(offsets[0]).toBe(0);
    offsets.forEach((offset, i) => {
      const member = splitLines(gunzipSync(file.subarray(offset, offsets[i + 1] ?? file.length)));
      const held = here.filter((row) => row.gzip_offset === offset);
      expect(member.length, `${name} @${offset}`).toBe(held.length);
      held.forEach((row, k) => {
        const text = member[k] as Buffer;
        expect(text.equals(whole[(row.line as number) - 1] as Buffer)).toBe(true);
        expect(createHash('sha256').update(text).digest('hex')).toBe(row.sha256);
        expect(/^\{"id":(-?\d+)/.exec(text.toString('utf8'))?.[1]).toBe(row.id);
      });
    });
    lines += whole.length;
  }
  expect(rows).toHaveLength(lines);
  expect(new Set(rows.map((row) => row.id)).size).toBe(rows.length);
}

function splitLines(text: Buffer): Buffer[] {
  const lines: Buffer[] = [];
  for (let start = 0, end = text.indexOf(10); end !== -1; start = end + 1, end = text.indexOf(10, start)) {
    lines.push(text.subarray(start, end));
  }
  return lines;
}

/**
 * Replaces a record's line in a snapshot's raw archive, as a backup would have written it: each gzip member of the part
 * compressed alone again, the record index's gzip offsets moved with them and (unless `keepIndexSha256`, which makes a
 * line that no longer matches its index row: damage) the record's sha256 set to the new text's; then the sizes and
 * hashes of the changed files in the manifest. The result agrees with its manifest, so `verify` passes it.
 */
export async function rewriteRecord(
  location: string,
  resource: string,
  id: string,
  text: string,
  options: { keepIndexSha256?: boolean } = {},
): Promise<void> {
  const rows = await readRecordIndex(location, resource);
  const row = rows.find((candidate) => candidate.id === id);
  if (row?.part == null) throw new Error(`${location}: no raw line of ${resource} ${id}`);
  const part = row.part;
  const rawPath = join(location, 'raw', resource, `part-${String(part).padStart(5, '0')}.jsonl.gz`);
  const file = await readFile(rawPath);
  const here = rows.filter((candidate) => candidate.part === part);
  const offsets = [...new Set(here.map((candidate) => candidate.gzip_offset as number))].sort((a, b) => a - b);
  const moved: [number, number][] = [];
  const members: Buffer[] = [];
  let at = 0;
  offsets.forEach((offset, i) => {
    let member = gunzipSync(file.subarray(offset, offsets[i + 1] ?? file.length));
    if (offset === row.gzip_offset) {
      const first = Math.min(...here.filter((r) => r.gzip_offset === offset).map((r) => r.line as number));
      const lines = splitLines(member).map((line) => line.toString('utf8'));
      lines[(row.line as number) - first] = text;
      member = Buffer.from(`${lines.join('\n')}\n`);
    }
    moved.push([offset, at]);
    const compressed = gzipSync(member);
    members.push(compressed);
    at += compressed.length;
  });
  await writeFile(rawPath, Buffer.concat(members));
  const manifest = JSON.parse(await readFile(join(location, 'manifest.json'), 'utf8')) as Manifest;
  const indexFiles = manifest.files.filter((f) => f.format === 'index' && f.table === resource);
  const sha256 = options.keepIndexSha256 ? undefined : createHash('sha256').update(text).digest('hex');
  await withDuckDb({}, async (db) => {
    for (const indexFile of indexFiles) {
      const path = join(location, indexFile.path);
      const offset = `CASE gzip_offset ${moved.map(([from, to]) => `WHEN ${from} THEN ${to}`).join(' ')} END`;
      await db.run(
        `COPY (SELECT * REPLACE (
                 ${sha256 === undefined ? 'sha256' : `CASE WHEN id = ${id} THEN '${sha256}' ELSE sha256 END`} AS sha256,
                 (CASE WHEN part = ${part} THEN ${offset} ELSE gzip_offset END)::BIGINT AS gzip_offset)
               FROM read_parquet(${sqlString(path)}))
         TO ${sqlString(`${path}.rewritten`)} (FORMAT parquet)`,
      );
      await rename(`${path}.rewritten`, path);
    }
  });
  const changed = new Set([`raw/${resource}/${rawPath.split('/').at(-1)}`, ...indexFiles.map((f) => f.path)]);
  const files = await Promise.all(
    manifest.files.map(async (entry) => {
      if (!changed.has(entry.path)) return entry;
      const bytes = await readFile(join(location, entry.path));
      return { ...entry, bytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') };
    }),
  );
  await writeFile(join(location, 'manifest.json'), serializeManifest({ ...manifest, files }));
}
