import { cp, mkdtemp, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseShopAddress } from '../../src/cli/shop-address.js';
import { createLogger } from '../../src/log.js';
import { type BackupResult, runBackup } from '../../src/runner/backup.js';
import { type JsonObject, type JsonValue, parseJson } from '../../src/shopify/json.js';
import { RESOURCES, type ResourceName } from '../../src/shopify/resources.js';
import { type RunningShop, startShop } from '../../src/simulator/index.js';
import { serialize } from '../../src/simulator/store.js';
import { recordIndexTable } from '../../src/sink/record-index-writer.js';
import type { FileFormat, WrittenFile } from '../../src/sink/written-file.js';
import { openCatalog } from '../../src/snapshot/catalog.js';
import { MANIFEST_NAME } from '../../src/snapshot/manifest.js';
import { type VerifyReport, verifyPassed, verifySnapshot } from '../../src/snapshot/verify.js';
import { LocalDirStorage, type Storage } from '../../src/storage/index.js';
import { type DeclaredTable, TABLES, tableByName } from '../../src/transform/index.js';
import { LINEAGE_COLUMNS } from '../../src/transform/schema.js';
import { expectIndexMatchesArchive, type IndexRow, readRecordIndex } from '../helpers/snapshot-files.js';
import { describedType, readBack } from '../sink/read-back.js';

/** A field the 2022-01 schema does not know, with the values a lossy path would mangle. */
const UNKNOWN: JsonObject = {
  shopsnap_future_field: { note: 'naïve ☃ 🚀', max_int64: 9223372036854775807n, nothing: null, none: [] },
};

let shop: RunningShop;
let work: string;
let backup: BackupResult;
const records = new Map<ResourceName, JsonObject[]>();

beforeAll(async () => {
  shop = await startShop({
    seed: 11,
    products: 40,
    customers: 60,
    orders: 200,
    bigIdShare: 0.2,
    unknownFields: UNKNOWN,
  });
  for (const resource of RESOURCES) records.set(resource, [...shop.records(resource)]);
  work = await mkdtemp(join(tmpdir(), 'shopsnap-backup-snapshot-'));
  backup = await runBackup({
    shop: parseShopAddress(shop.url),
    token: shop.token,
    storage: new LocalDirStorage(join(work, 'out')),
    resources: RESOURCES,
    formats: ['parquet', 'ndjson', 'raw'],
    depth: 4,
    stagingRoot: join(work, 'staging'),
    logger: createLogger({ level: 'silent' }),
  });
});

afterAll(async () => {
  await shop.close();
  await rm(work, { recursive: true, force: true });
});

function recordsOf(resource: ResourceName): JsonObject[] {
  return records.get(resource) ?? [];
}

function filesOf(format: FileFormat, table: string): WrittenFile[] {
  return backup.manifest.files
    .filter((file) => file.format === format && file.table === table)
    .map((file) => ({ ...file, path: join(backup.location, ...file.path.split('/')) }));
}

function idText(value: JsonValue | undefined): string | null {
  return value === null || value === undefined ? null : String(value);
}

/** The source objects a table's rows come from: the records, or every element of the parent objects' arrays. */
function sourcesOf(table: DeclaredTable): JsonValue[] {
  if (table.parent === undefined) return recordsOf(table.resource);
  const field = table.field as string;
  return parentObjectsOf(table).flatMap((parent) => elementsOf(parent[field]));
}

function parentObjectsOf(table: DeclaredTable): JsonObject[] {
  const parent = tableByName(table.parent?.table ?? '') as DeclaredTable;
  return sourcesOf(parent) as JsonObject[];
}

function elementsOf(value: JsonValue | undefined): JsonValue[] {
  return Array.isArray(value) ? value : [];
}

/** Parent tables: the record ids. Child tables: the parent's id once per array element (a multiset of keys). */
function expectedKeys(table: DeclaredTable): (string | null)[] {
  if (table.parent === undefined) return recordsOf(table.resource).map((record) => idText(record.id));
  const field = table.field as string;
  return parentObjectsOf(table).flatMap((parent) => elementsOf(parent[field]).map(() => idText(parent.id)));
}

function sorted<T>(values: T[]): T[] {
  return [...values].sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));
}

function walk(value: JsonValue, visit: (value: JsonValue) => void): void {
  visit(value);
  if (Array.isArray(value)) for (const element of value) walk(element, visit);
  else if (value !== null && typeof value === 'object') for (const inner of Object.values(value)) walk(inner, visit);
}

async function rawLines(resource: ResourceName): Promise<string[]> {
  const lines: string[] = [];
  for (const file of filesOf('raw', resource)) {
    const text = gunzipSync(await readFile(file.path)).toString('utf8');
    lines.push(...text.split('\n').filter((line) => line !== ''));
  }
  return lines;
}

describe('a backup of the simulated shop', () => {
  it('crawls a shop with big ids, unicode beyond the BMP, nulls and empty arrays', () => {
    const seen = { bigId: false, astral: false, nonAscii: false, nullValue: false, emptyArray: false };
    for (const resource of RESOURCES) {
      for (const record of recordsOf(resource)) {
        walk(record, (value) => {
          if (typeof value === 'bigint' && value > BigInt(Number.MAX_SAFE_INTEGER)) seen.bigId = true;
          if (typeof value === 'string' && /[\u{10000}-\u{10ffff}]/u.test(value)) seen.astral = true;
          if (typeof value === 'string' && /\P{ASCII}/u.test(value)) seen.nonAscii = true;
          if (value === null) seen.nullValue = true;
          if (Array.isArray(value) && value.length === 0) seen.emptyArray = true;
        });
      }
    }
    expect(seen).toEqual({ bigId: true, astral: true, nonAscii: true, nullValue: true, emptyArray: true });
  });

  it('is complete, its counts check out, and verify passes', async () => {
    expect(backup.manifest.status).toBe('complete');
    for (const resource of RESOURCES) {
      const count = recordsOf(resource).length;
      expect([resource, backup.manifest.resources[resource]]).toMatchObject([
        resource,
        { count_before: count, count_after: count, exported: count, check: 'ok' },
      ]);
    }
    const report = await verifySnapshot(...(await storageAt(backup.location)));
    expect(report).toMatchObject({ checked: backup.manifest.files.length, missing: [], extra: [], differing: [] });
    expect(verifyPassed(report)).toBe(true);
  });

  it.each(TABLES.map((table) => [table.name, table] as const))(
    '%s: Parquet has the declared types then the lineage, and it and NDJSON hold exactly the shop’s rows',
    async (_name, table) => {
      const parquet = await readBack(filesOf('parquet', table.name), table);
      const ndjson = await readBack(filesOf('ndjson', table.name), table);
      const columns = [...table.columns, ...LINEAGE_COLUMNS];
      expect(Object.entries(parquet.types)).toEqual(columns.map((column) => [column.name, describedType(column)]));
      expect(Object.keys(ndjson.types)).toEqual(table.columns.map((column) => column.name));
      const lineage = await readBack(filesOf('parquet', table.name), { ...table, columns: [...LINEAGE_COLUMNS] });
      const { shop, snapshot_id } = backup.manifest;
      expect(new Set(lineage.rows.map((row) => JSON.stringify(row)))).toEqual(
        new Set(lineage.rows.length === 0 ? [] : [JSON.stringify({ _shop: shop, _snapshot_id: snapshot_id })]),
      );
      const key = table.parent?.key ?? 'id';
      const expected = sorted(expectedKeys(table));
      expect(sorted(parquet.rows.map((row) => row[key] ?? null))).toEqual(expected);
      expect(sorted(parquet.rows)).toEqual(sorted(ndjson.rows));
      expect(backup.manifest.tables[table.name]?.rows).toBe(expected.length);
    },
  );

  it.each(RESOURCES)('%s: the raw archive holds every record exactly as served', async (resource) => {
    const lines = await rawLines(resource);
    const served = new Map(recordsOf(resource).map((record) => [idText(record.id), record]));
    expect(lines).toHaveLength(served.size);
    for (const line of lines) {
      const archived = parseJson(line) as JsonObject;
      const record = served.get(idText(archived.id)) as JsonObject;
      expect(archived).toEqual(record);
      expect(line).toBe(serialize(record));
    }
  });

  it.each(RESOURCES)('%s: an unknown field reaches `_extra` in NDJSON and Parquet and is counted', async (resource) => {
    const table = tableByName(resource) as DeclaredTable;
    for (const format of ['ndjson', 'parquet'] as const) {
      const { rows } = await readBack(filesOf(format, resource), table);
      expect(rows).toHaveLength(recordsOf(resource).length);
      for (const row of rows) expect(parseJson(row._extra as string)).toEqual(UNKNOWN);
    }
    expect(backup.manifest.resources[resource]?.unknown_fields).toBe(recordsOf(resource).length);
  });

  it('indexes every record: exact ids, updated_at, the sha256 of its raw line, and where that line lies', async () => {
    const indexFiles = backup.manifest.files.filter((file) => file.format === 'index');
    expect(indexFiles.map((file) => file.path).sort()).toEqual(
      RESOURCES.map((resource) => `index/${resource}/part-00000.parquet`).sort(),
    );
    const asParquet = filesOf('index', 'orders').map((file) => ({ ...file, format: 'parquet' as const }));
    const { types } = await readBack(asParquet, recordIndexTable('orders'));
    expect(types).toEqual({
      id: 'BIGINT',
      updated_at: 'TIMESTAMP WITH TIME ZONE',
      sha256: 'VARCHAR',
      part: 'INTEGER',
      line: 'BIGINT',
      gzip_offset: 'BIGINT',
    });
    for (const resource of RESOURCES) {
      await expectIndexMatchesArchive(backup.location, resource);
      const updatedAt = new Map(
        recordsOf(resource).map((record) => [String(record.id), new Date(String(record.updated_at)).toISOString()]),
      );
      const rows = await readRecordIndex(backup.location, resource);
      expect(rows.map((row) => [row.id, row.updated_at])).toEqual(
        rows.map((row) => [row.id, updatedAt.get(row.id)?.replace('.000Z', 'Z')]),
      );
      expect(sorted(rows.map((row) => row.id))).toEqual(sorted([...updatedAt.keys()]));
    }
  });

  it.each([
    ['raw', ['raw', 'index']],
    ['ndjson', ['ndjson', 'index']],
  ] as const)(
    'a %s-only run indexes every record too (without a raw archive: no place, the same sha256)',
    async (format, written) => {
      const only = await runBackup({
        shop: parseShopAddress(shop.url),
        token: shop.token,
        storage: new LocalDirStorage(join(work, `${format}-only`)),
        resources: RESOURCES,
        formats: [format],
        depth: 4,
        stagingRoot: join(work, 'staging'),
        logger: createLogger({ level: 'silent' }),
      });
      expect(new Set(only.manifest.files.map((file) => file.format))).toEqual(new Set(written));
      for (const resource of RESOURCES) {
        // A raw-only run still flattens every record to count the fields the schema does not know.
        expect(only.manifest.resources[resource]?.unknown_fields).toBe(recordsOf(resource).length);
        const full = await readRecordIndex(backup.location, resource);
        const rows = await readRecordIndex(only.location, resource);
        const hashes = (list: IndexRow[]) => sorted(list.map((row) => `${row.id} ${row.updated_at} ${row.sha256}`));
        expect(hashes(rows)).toEqual(hashes(full));
        if (format === 'raw') await expectIndexMatchesArchive(only.location, resource);
        else
          expect(rows.filter((row) => row.part !== null || row.line !== null || row.gzip_offset !== null)).toEqual([]);
      }
    },
  );

  const differingFor = (reason: string) => (report: VerifyReport) =>
    report.differing.filter((entry) => entry.reason.startsWith(reason)).map((entry) => entry.path);
  const damages = [
    ['flipping a byte of', flipMiddleByte, differingFor('sha256 ')],
    ['truncating', halve, differingFor('size ')],
    ['deleting', (path: string) => rm(path), (report: VerifyReport) => report.missing],
  ] as const;

  it.each(damages)('%s any file makes verify fail and name it', async (_what, damage, named) => {
    const copy = await copySnapshot();
    for (const file of backup.manifest.files) await damage(join(copy, ...file.path.split('/')));
    const report = await verifySnapshot(...(await storageAt(copy)));
    expect(verifyPassed(report)).toBe(false);
    expect(sorted(named(report))).toEqual(sorted(backup.manifest.files.map((file) => file.path)));
  });

  it('damaging one Parquet file names that file alone', async () => {
    const copy = await copySnapshot();
    const [target] = filesOf('parquet', 'order_line_items');
    const path = (target as WrittenFile).path.slice(backup.location.length + 1);
    await flipMiddleByte(join(copy, path));
    const report = await verifySnapshot(...(await storageAt(copy)));
    expect(report.differing.map((entry) => entry.path)).toEqual([path]);
    expect([report.missing, report.extra]).toEqual([[], []]);
  });

  it('an extra file makes verify fail and name it', async () => {
    const copy = await copySnapshot();
    await writeFile(join(copy, 'parquet', 'orders', 'part-00001.parquet'), 'PAR1');
    const report = await verifySnapshot(...(await storageAt(copy)));
    expect(verifyPassed(report)).toBe(false);
    expect(report.extra).toEqual(['parquet/orders/part-00001.parquet']);
  });

  it('a deleted manifest makes verify fail and name it', async () => {
    const copy = await copySnapshot();
    await rm(join(copy, MANIFEST_NAME));
    await expect(verifySnapshot(...(await storageAt(copy)))).rejects.toThrow(MANIFEST_NAME);
  });
});

let copies = 0;

/** A fresh copy of the snapshot to damage: `<work>/copy-N/<shop>/<snapshot id>`. */
async function copySnapshot(): Promise<string> {
  const copy = join(work, `copy-${copies++}`, backup.manifest.shop, backup.manifest.snapshot_id);
  await cp(backup.location, copy, { recursive: true });
  return copy;
}

/** The snapshot at `location` as verify opens it: its destination's storage and its key there. */
async function storageAt(location: string): Promise<[Storage, string]> {
  const { storage, scope } = await openCatalog(location);
  if (scope.kind !== 'snapshot') throw new Error(`${location} is not a snapshot`);
  return [storage, `${scope.shop}/${scope.id}`];
}

async function flipMiddleByte(path: string): Promise<void> {
  const bytes = await readFile(path);
  const at = Math.floor(bytes.length / 2);
  bytes[at] = (bytes[at] as number) ^ 0xff;
  await writeFile(path, bytes);
}

async function halve(path: string): Promise<void> {
  const bytes = await readFile(path);
  await truncate(path, Math.floor(bytes.length / 2));
}
