import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { RESOURCES } from '../shopify/resources.js';
import { sqlIdentifier, sqlString } from '../sink/duckdb.js';
import type { SnapshotEntry } from '../snapshot/catalog.js';
import { type Manifest, type ManifestFile, whyIncomplete } from '../snapshot/manifest.js';
import { requestsOf, snapshotFacts } from '../snapshot/snapshot-facts.js';

interface ViewColumn<T> {
  name: string;
  type: string;
  value(item: T): unknown;
}

type WithManifest = SnapshotEntry & { manifest: Manifest };

/** `snapshots`: one row per manifest in the location, whatever its status. */
const SNAPSHOT_COLUMNS: ViewColumn<WithManifest>[] = [
  { name: 'shop', type: 'VARCHAR', value: (s) => s.shop },
  { name: 'snapshot_id', type: 'VARCHAR', value: (s) => s.id },
  { name: 'status', type: 'VARCHAR', value: (s) => s.state },
  {
    name: 'incomplete_reason',
    type: 'VARCHAR',
    value: (s) => (s.state === 'complete' ? null : whyIncomplete(s.manifest)),
  },
  { name: 'started_at', type: 'TIMESTAMPTZ', value: (s) => s.manifest.started_at },
  { name: 'finished_at', type: 'TIMESTAMPTZ', value: (s) => s.manifest.finished_at },
  { name: 'duration_s', type: 'DOUBLE', value: (s) => snapshotFacts(s).duration_s },
  { name: 'files', type: 'BIGINT', value: (s) => s.objects },
  { name: 'bytes', type: 'BIGINT', value: (s) => s.bytes },
  { name: 'requests', type: 'BIGINT', value: (s) => requestsOf(s.manifest) },
  { name: 'resumed_attempts', type: 'INTEGER', value: (s) => s.manifest.resumed?.attempts ?? 0 },
  { name: 'schema_version', type: 'INTEGER', value: (s) => s.manifest.schema_version },
  { name: 'api_version', type: 'VARCHAR', value: (s) => s.manifest.api_version_answered ?? s.manifest.api_version },
  { name: 'changes_since', type: 'VARCHAR', value: (s) => s.manifest.changes?.since ?? null },
  ...RESOURCES.flatMap((resource): ViewColumn<WithManifest>[] => {
    const summary = (s: WithManifest) => s.manifest.resources[resource];
    const change = (s: WithManifest, kind: 'added' | 'removed' | 'changed') =>
      s.manifest.changes?.resources[resource]?.[kind] ?? null;
    return [
      { name: resource, type: 'BIGINT', value: (s) => summary(s)?.exported ?? null },
      { name: `${resource}_count_before`, type: 'BIGINT', value: (s) => summary(s)?.count_before ?? null },
      { name: `${resource}_count_after`, type: 'BIGINT', value: (s) => summary(s)?.count_after ?? null },
      { name: `${resource}_check`, type: 'VARCHAR', value: (s) => summary(s)?.check ?? null },
      { name: `${resource}_added`, type: 'BIGINT', value: (s) => change(s, 'added') },
      { name: `${resource}_removed`, type: 'BIGINT', value: (s) => change(s, 'removed') },
      { name: `${resource}_changed`, type: 'BIGINT', value: (s) => change(s, 'changed') },
    ];
  }),
];

interface FileRow {
  snapshot: WithManifest;
  file: ManifestFile;
  location: string;
}

/** `files`: one row per file every manifest lists. */
const FILE_COLUMNS: ViewColumn<FileRow>[] = [
  { name: 'shop', type: 'VARCHAR', value: (f) => f.snapshot.shop },
  { name: 'snapshot_id', type: 'VARCHAR', value: (f) => f.snapshot.id },
  { name: 'path', type: 'VARCHAR', value: (f) => f.file.path },
  { name: 'table_name', type: 'VARCHAR', value: (f) => f.file.table },
  { name: 'format', type: 'VARCHAR', value: (f) => f.file.format },
  { name: 'rows', type: 'BIGINT', value: (f) => f.file.rows },
  { name: 'bytes', type: 'BIGINT', value: (f) => f.file.bytes },
  { name: 'sha256', type: 'VARCHAR', value: (f) => f.file.sha256 },
  { name: 'location', type: 'VARCHAR', value: (f) => `${f.location}/${f.snapshot.key}/${f.file.path}` },
];

/**
 * The views `snapshots` and `files` over every manifest in `entries` (`location`: where their keys are), read by DuckDB
 * from NDJSON written to `scratch` with each column's type spelled out.
 */
export async function defineCatalogViews(
  connection: DuckDBConnection,
  entries: readonly SnapshotEntry[],
  location: string,
  scratch: string,
): Promise<void> {
  const snapshots = entries.filter((entry): entry is WithManifest => entry.manifest !== undefined);
  const files = snapshots.flatMap((snapshot) => snapshot.manifest.files.map((file) => ({ snapshot, file, location })));
  await defineView(connection, 'snapshots', SNAPSHOT_COLUMNS, snapshots, scratch);
  await defineView(connection, 'files', FILE_COLUMNS, files, scratch);
}

async function defineView<T>(
  connection: DuckDBConnection,
  name: string,
  columns: readonly ViewColumn<T>[],
  items: readonly T[],
  scratch: string,
): Promise<void> {
  const path = join(scratch, `${name}.ndjson`);
  const lines = items.map((item) => JSON.stringify(Object.fromEntries(columns.map((c) => [c.name, c.value(item)]))));
  await writeFile(path, lines.map((line) => `${line}\n`).join(''));
  const types = columns.map((column) => `${sqlString(column.name)}: ${sqlString(column.type)}`).join(', ');
  const select = columns.map((column) => sqlIdentifier(column.name)).join(', ');
  await connection.run(
    `CREATE VIEW ${sqlIdentifier(name)} AS SELECT ${select} FROM read_json(${sqlString(path)}, format = 'newline_delimited', columns = {${types}})`,
  );
}
