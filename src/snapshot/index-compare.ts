import type { DuckDBConnection } from '@duckdb/node-api';
import { sqlString } from '../sink/duckdb.js';
import { type ArchivePlace, placeColumns, placeOf, placesSql } from './record-index.js';

/** How one resource's records differ between two snapshots, by id and by the sha256 of their raw text. */
export interface ChangeCounts {
  added: number;
  removed: number;
  changed: number;
  unchanged: number;
}

/** A record that differs, with its places in the two archives where it has one (no place without an archive). */
export interface RecordDifference {
  /** Exact decimal id. */
  id: string;
  change: 'added' | 'removed' | 'changed';
  before: ArchivePlace | undefined;
  after: ArchivePlace | undefined;
}

/** Two snapshots' record indexes of one resource, compared: the counts, and the records that differ. */
export interface IndexComparison {
  counts: ChangeCounts;
  /** The records that differ, in batches, ordered by id, each with its places in the two archives. */
  differences(): AsyncIterable<RecordDifference[]>;
}

/**
 * The one comparison of two record indexes (Parquet files of one resource, local paths): every record of either, by
 * id, is `added` (only after), `removed` (only before), `changed` (another sha256 of its raw text) or `unchanged`,
 * kept in the connection's temp table `compared` (id and change: about 16 bytes a record). DuckDB joins the indexes,
 * spilling to disk past its memory limit: the records themselves are never read, and no index is held in this
 * process. The places of the records that differ are looked up by id afterwards, for those few only.
 */
export async function compareIndexes(
  connection: DuckDBConnection,
  before: readonly string[],
  after: readonly string[],
): Promise<IndexComparison> {
  const read = (files: readonly string[]) =>
    `SELECT id, sha256 FROM read_parquet([${files.map(sqlString).join(', ')}])`;
  await connection.run(
    `CREATE OR REPLACE TEMP TABLE compared AS
     WITH a AS (${read(before)}), b AS (${read(after)})
     SELECT coalesce(a.id, b.id) AS id,
            CASE WHEN a.id IS NULL THEN 'added' WHEN b.id IS NULL THEN 'removed'
                 WHEN a.sha256 = b.sha256 THEN 'unchanged' ELSE 'changed' END AS change
     FROM a FULL JOIN b ON a.id = b.id`,
  );
  const result = await connection.runAndReadAll('SELECT change, count(*) FROM compared GROUP BY change');
  const counts: ChangeCounts = { added: 0, removed: 0, changed: 0, unchanged: 0 };
  for (const [change, n] of result.getRowsJS()) counts[change as keyof ChangeCounts] = Number(n);
  return { counts, differences: () => differences(connection, before, after) };
}

/** What a manifest records of a comparison. */
export async function countChanges(
  connection: DuckDBConnection,
  before: readonly string[],
  after: readonly string[],
): Promise<ChangeCounts> {
  return (await compareIndexes(connection, before, after)).counts;
}

async function* differences(
  connection: DuckDBConnection,
  before: readonly string[],
  after: readonly string[],
): AsyncIterable<RecordDifference[]> {
  // One step at a time, each result kept as a temp table: one query of them all needed several times the memory.
  await connection.run(
    `CREATE OR REPLACE TEMP TABLE differing AS SELECT id, change FROM compared WHERE change <> 'unchanged'`,
  );
  await connection.run(`CREATE OR REPLACE TEMP TABLE places_before AS ${placesSql(before, 'differing')}`);
  await connection.run(`CREATE OR REPLACE TEMP TABLE places_after AS ${placesSql(after, 'differing')}`);
  const result = await connection.stream(
    `SELECT d.id::VARCHAR, d.change, ${placeColumns('a')}, ${placeColumns('b')}
     FROM differing d LEFT JOIN places_before a ON a.id = d.id LEFT JOIN places_after b ON b.id = d.id
     ORDER BY d.id`,
  );
  for await (const rows of result.yieldRowsJs()) {
    yield rows.map((row) => ({
      id: String(row[0]),
      change: row[1] as RecordDifference['change'],
      before: placeOf(row.slice(2, 9)),
      after: placeOf(row.slice(9, 16)),
    }));
  }
}
