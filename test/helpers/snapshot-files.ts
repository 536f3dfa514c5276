import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { createGunzip, gunzipSync } from 'node:zlib';
import { expect } from 'vitest';
import { sqlString, withDuckDb } from '../../src/sink/duckdb.js';

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
