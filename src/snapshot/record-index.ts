import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { sqlString } from '../sink/duckdb.js';
import { downloadObject, type Storage } from '../storage/storage.js';
import type { ManifestFile } from './manifest.js';

/**
 * Reading a snapshot's record index (`index/<resource>/part-N.parquet`, see the README): its files, local copies for
 * DuckDB, and where its rows place records in the raw archive.
 */

/** Where a record's line lies in a snapshot's raw archive, with the gzip member holding it. */
export interface ArchivePlace {
  part: number;
  line: number;
  sha256: string;
  /** The member: its byte offset, the number of its first line and its lines, where the next one starts (if any). */
  offset: number;
  firstLine: number;
  memberLines: number;
  end: number | undefined;
}

/** A resource's record index files in a snapshot's manifest. */
export function indexFilesOf(files: readonly ManifestFile[], resource: string): ManifestFile[] {
  return files.filter((file) => file.format === 'index' && file.table === resource);
}

/** Local copies in `dir` of index files of the snapshot at `key` (DuckDB reads local files), in their order. */
export async function copyIndex(
  storage: Storage,
  key: string,
  files: readonly ManifestFile[],
  dir: string,
): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  return Promise.all(
    files.map(async (file, i) => {
      const path = join(dir, `${i}.parquet`);
      await downloadObject(storage, `${key}/${file.path}`, path);
      return path;
    }),
  );
}

/**
 * SQL: the index rows (of the Parquet `files`) of the records whose ids relation `ids` lists, with the gzip member
 * holding each: every column of the row, and `first_line`, `member_lines` and `member_end` (the next member's offset;
 * NULL for a part's last). Every line of a part has its row, so the index alone knows its members.
 */
export function placesSql(files: readonly string[], ids: string): string {
  const index = `read_parquet([${files.map(sqlString).join(', ')}])`;
  return `SELECT r.*, m.first_line, m.member_lines, m.member_end
     FROM (SELECT * FROM ${index} WHERE id IN (SELECT id FROM ${ids})) r
     LEFT JOIN (SELECT part, gzip_offset, min(line) AS first_line, count(*) AS member_lines,
                       lead(gzip_offset) OVER (PARTITION BY part ORDER BY gzip_offset) AS member_end
                FROM ${index} WHERE part IS NOT NULL GROUP BY part, gzip_offset) m
       ON m.part = r.part AND m.gzip_offset = r.gzip_offset`;
}

/** SQL: the seven columns placeOf reads, of a row `places` of placesSql. */
export function placeColumns(places: string): string {
  return ['part', 'line', 'sha256', 'gzip_offset', 'first_line', 'member_lines', 'member_end']
    .map((column) => `${places}.${column}`)
    .join(', ');
}

/** An ArchivePlace from the seven values of placeColumns; undefined for a snapshot without a raw archive. */
export function placeOf([part, line, sha256, offset, firstLine, lines, end]: readonly unknown[]):
  | ArchivePlace
  | undefined {
  if (part === null || part === undefined || sha256 === null) return undefined;
  return {
    part: Number(part),
    line: Number(line),
    sha256: String(sha256),
    offset: Number(offset),
    firstLine: Number(firstLine),
    memberLines: Number(lines),
    end: end === null || end === undefined ? undefined : Number(end),
  };
}
