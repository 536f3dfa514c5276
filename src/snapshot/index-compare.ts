import type { DuckDBConnection } from '@duckdb/node-api';
import { sqlString } from '../sink/duckdb.js';

/** How one resource's records differ between two snapshots, by id and by the sha256 of their raw text. */
export interface ChangeCounts {
  added: number;
  removed: number;
  changed: number;
  unchanged: number;
}

/** Where a record's line lies in a snapshot's raw archive, with the gzip member holding it (see the README). */
export interface ArchivePlace {
  part: number;
  line: number;
  sha256: string;
  /** The member: its byte offset, the number of its first line, and where the next one starts (undefined: none). */
  offset: number;
  firstLine: number;
  end: number | undefined;
}

/** A record that differs, with its places in the two archives where it has one (no place without an archive). */
export interface RecordDifference {
  /** Exact decimal id. */
  id: string;
  change: 'added' | 'removed' | 'changed';
  before: ArchivePlace | undefined;
  after: ArchivePlace | undefined;
}

/** The two indexes (Parquet files of one resource, local paths) as `a` (before) and `b` (after). */
function bothIndexes(before: readonly string[], after: readonly string[]): string {
  const read = (files: readonly string[]) => `SELECT * FROM read_parquet([${files.map(sqlString).join(', ')}])`;
  return `WITH a AS (${read(before)}), b AS (${read(after)})`;
}

/**
 * Compares two record indexes by id and sha256. DuckDB joins them (spilling to disk past its memory limit): the records
 * themselves are never read, and no index is held in this process.
 */
export async function countChanges(
  connection: DuckDBConnection,
  before: readonly string[],
  after: readonly string[],
): Promise<ChangeCounts> {
  const result = await connection.runAndReadAll(
    `${bothIndexes(before, after)}
     SELECT count(*) FILTER (WHERE a.id IS NULL) AS added,
            count(*) FILTER (WHERE b.id IS NULL) AS removed,
            count(*) FILTER (WHERE a.sha256 <> b.sha256) AS changed,
            count(*) FILTER (WHERE a.sha256 = b.sha256) AS unchanged
     FROM a FULL JOIN b ON a.id = b.id`,
  );
  const [added = 0, removed = 0, changed = 0, unchanged = 0] = (result.getRowsJS()[0] ?? []).map(Number);
  return { added, removed, changed, unchanged };
}

/**
 * The records that differ between two indexes, in batches, ordered by id, each with its places in the two archives.
 * A member's first line and end come from the index itself: every line of a part has its row.
 */
export async function* differences(
  connection: DuckDBConnection,
  before: readonly string[],
  after: readonly string[],
): AsyncIterable<RecordDifference[]> {
  const members = (side: string) =>
    `SELECT part, gzip_offset, min(line) AS first_line,
            lead(gzip_offset) OVER (PARTITION BY part ORDER BY gzip_offset) AS member_end
     FROM ${side} WHERE part IS NOT NULL GROUP BY part, gzip_offset`;
  const place = (side: string) =>
    `d.${side}_part, d.${side}_line, d.${side}_sha256, d.${side}_offset, ${side}m.first_line, ${side}m.member_end`;
  const result = await connection.stream(
    `${bothIndexes(before, after)},
     am AS (${members('a')}),
     bm AS (${members('b')}),
     d AS (
       SELECT a.id AS a_id, b.id AS b_id,
              a.part AS a_part, a.line AS a_line, a.sha256 AS a_sha256, a.gzip_offset AS a_offset,
              b.part AS b_part, b.line AS b_line, b.sha256 AS b_sha256, b.gzip_offset AS b_offset
       FROM a FULL JOIN b ON a.id = b.id
       WHERE a.sha256 IS DISTINCT FROM b.sha256)
     SELECT coalesce(d.a_id, d.b_id)::VARCHAR AS id,
            CASE WHEN d.a_id IS NULL THEN 'added' WHEN d.b_id IS NULL THEN 'removed' ELSE 'changed' END AS change,
            ${place('a')}, ${place('b')}
     FROM d
     LEFT JOIN am ON am.part = d.a_part AND am.gzip_offset = d.a_offset
     LEFT JOIN bm ON bm.part = d.b_part AND bm.gzip_offset = d.b_offset
     ORDER BY coalesce(d.a_id, d.b_id)`,
  );
  for await (const rows of result.yieldRowsJs()) {
    yield rows.map((row) => ({
      id: String(row[0]),
      change: row[1] as RecordDifference['change'],
      before: placeOf(row.slice(2, 8)),
      after: placeOf(row.slice(8, 14)),
    }));
  }
}

function placeOf([part, line, sha256, offset, firstLine, end]: readonly unknown[]): ArchivePlace | undefined {
  if (part === null || part === undefined || sha256 === null) return undefined;
  return {
    part: Number(part),
    line: Number(line),
    sha256: String(sha256),
    offset: Number(offset),
    firstLine: Number(firstLine),
    end: end === null || end === undefined ? undefined : Number(end),
  };
}
