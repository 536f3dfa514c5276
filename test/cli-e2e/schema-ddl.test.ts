import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningShop, startShop } from '../../src/simulator/index.js';
import { sqlIdentifier, sqlString, withDuckDb } from '../../src/sink/duckdb.js';
import type { Manifest } from '../../src/snapshot/manifest.js';
import { TABLES } from '../../src/transform/index.js';
import { lastLine, runCli } from '../helpers/cli.js';

let shop: RunningShop;
let work: string;
let location: string;
let manifest: Manifest;

beforeAll(async () => {
  shop = await startShop({ seed: 23, products: 12, customers: 20, orders: 60, bigIdShare: 0.2 });
  work = await mkdtemp(join(tmpdir(), 'shopsnap-schema-ddl-'));
  const backup = await runCli(['backup', '--shop', shop.url, '--out', join(work, 'out'), '--formats', 'parquet'], {
    env: { SHOPSNAP_TOKEN: shop.token },
  });
  expect(backup.code, backup.stderr).toBe(0);
  location = lastLine(backup.stdout);
  manifest = JSON.parse(await readFile(join(location, 'manifest.json'), 'utf8'));
}, 60_000);

afterAll(async () => {
  await shop.close();
  await rm(work, { recursive: true, force: true });
});

describe('shopsnap schema --format: DDL for the Parquet files a snapshot holds', () => {
  it('duckdb: creates tables whose columns and types are exactly those of the files, which then load into them', async () => {
    const ddl = await runCli(['schema', '--format', 'duckdb']);
    expect(ddl.code, ddl.stderr).toBe(0);
    const loaded = await withDuckDb({}, async (db) => {
      await db.run(ddl.stdout);
      const described = async (sql: string) =>
        (await db.runAndReadAll(`DESCRIBE ${sql}`)).getRows().map(([name, type]) => `${name} ${type}`);
      const tables: string[] = [];
      for (const table of TABLES) {
        const files = manifest.files
          .filter((file) => file.format === 'parquet' && file.table === table.name)
          .map((file) => sqlString(join(location, file.path)));
        expect(files.length > 0, `${table.name}: files if and only if rows`).toBe(
          (manifest.tables[table.name]?.rows ?? 0) > 0,
        );
        if (files.length === 0) continue;
        const parquet = `read_parquet([${files.join(', ')}])`;
        expect(await described(sqlIdentifier(table.name))).toEqual(await described(`SELECT * FROM ${parquet}`));
        await db.run(`INSERT INTO ${sqlIdentifier(table.name)} SELECT * FROM ${parquet}`);
        const rows = await db.runAndReadAll(
          `SELECT count(*)::INTEGER, max(_snapshot_id) FROM ${sqlIdentifier(table.name)}`,
        );
        expect(rows.getRows()[0]).toEqual([manifest.tables[table.name]?.rows, manifest.snapshot_id]);
        tables.push(table.name);
      }
      return tables;
    });
    expect(loaded).toEqual(expect.arrayContaining(['products', 'customers', 'orders', 'order_line_items']));
  });

  it('bigquery: one CREATE TABLE per table in the dataset, every column typed, lineage last', async () => {
    const ddl = await runCli(['schema', '--format', 'bigquery', '--dataset', 'shop_backups']);
    expect(ddl.code, ddl.stderr).toBe(0);
    const statements = ddl.stdout.split(/\n\n/).filter((part) => part.startsWith('CREATE'));
    expect(statements).toHaveLength(TABLES.length);
    const orders = statements.find((sql) => sql.startsWith('CREATE TABLE IF NOT EXISTS `shop_backups.orders` ('));
    expect(orders).toContain('\n  `id` INT64,\n');
    expect(orders).toContain('\n  `total_price` NUMERIC,\n');
    expect(orders).toContain('\n  `created_at` TIMESTAMP,\n');
    expect(orders).toMatch(/\n {2}`_extra` STRING,\n {2}`_shop` STRING,\n {2}`_snapshot_id` STRING\n\);$/);
  });

  it('athena: an external table per table over a destination, partitioned by shop and snapshot through its paths', async () => {
    const ddl = await runCli(['schema', '--format', 'athena', '--location', 's3://my-backups/shopsnap/']);
    expect(ddl.code, ddl.stderr).toBe(0);
    const statements = ddl.stdout.split(/\n\n/).filter((part) => part.startsWith('CREATE'));
    expect(statements).toHaveLength(TABLES.length);
    const items = statements.find((sql) =>
      sql.startsWith('CREATE EXTERNAL TABLE IF NOT EXISTS `shopsnap`.`order_line_items` ('),
    );
    expect(items).toContain('\n  `order_id` bigint,\n  `position` int,\n');
    expect(items).toContain("\nLOCATION 's3://my-backups/shopsnap/'\n");
    expect(items).toContain(
      // biome-ignore lint/suspicious/noTemplateCurlyInString: Athena's template placeholders, not JavaScript's
      "'storage.location.template' = 's3://my-backups/shopsnap/${shop}/${snapshot_id}/parquet/order_line_items/'",
    );
    const missing = await runCli(['schema', '--format', 'athena']);
    expect([missing.code, missing.stderr.split('\n')[0]]).toEqual([
      2,
      'shopsnap: --format athena needs --location s3://bucket/prefix, the destination the tables read',
    ]);
    const stray = await runCli(['schema', '--format', 'bigquery', '--location', 's3://my-backups/shopsnap']);
    expect([stray.code, stray.stderr.split('\n')[0]]).toEqual([
      2,
      "shopsnap: --location is where Athena's tables read; --format bigquery takes none",
    ]);
  });

  it('--json is --format json, with the lineage columns', async () => {
    const json = await runCli(['schema', '--json']);
    expect(JSON.parse(json.stdout).lineage_columns.map((column: { name: string }) => column.name)).toEqual([
      '_shop',
      '_snapshot_id',
    ]);
    expect((await runCli(['schema', '--format', 'json'])).stdout).toBe(json.stdout);
  });
});
