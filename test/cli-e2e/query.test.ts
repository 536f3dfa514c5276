import { cp, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hashFile } from '../../src/local-file.js';
import { sqlString, withDuckDb } from '../../src/sink/duckdb.js';
import type { Manifest } from '../../src/snapshot/manifest.js';
import { TABLES } from '../../src/transform/index.js';
import { type BackupHistory, beforeAllHistories, storedManifests, storedRawIds } from '../helpers/backup-history.js';
import { type CliResult, failureLine, runCli } from '../helpers/cli.js';

let work: string;
let local: BackupHistory;
let bucket: BackupHistory;
beforeAllHistories('query', (histories) => {
  ({ work, local, bucket } = histories);
});

function query(history: BackupHistory, args: string[], location = history.out): Promise<CliResult> {
  return runCli(['query', location, ...args, ...history.flags], { env: history.env, cwd: work });
}

/** The rows of a query, through --format json (DuckDB's writer: every value exact, ids as bare integers). */
async function rows(history: BackupHistory, sql: string, ...flags: string[]): Promise<Record<string, unknown>[]> {
  const result = await query(history, [sql, '--format', 'json', ...flags]);
  expect(result.code, result.stderr).toBe(0);
  // Big ids stay exact: quoted before parsing.
  return JSON.parse(result.stdout.replace(/("id":)(\d{16,})/g, '$1"$2"'));
}

describe.each([
  ['a local destination', () => local],
  ['a bucket (s3rver)', () => bucket],
])('shopsnap query over %s', (_name, historyOf) => {
  it('reads each shop’s newest complete snapshot through its manifest: every table’s rows, never the unfinished run', async () => {
    const history = historyOf();
    const manifests = await storedManifests(history);
    const newest = {
      [history.mainKey]: manifests.get(`${history.mainKey}/${history.mainComplete[2]}`) as Manifest,
      [history.secondKey]: manifests.get(`${history.secondKey}/${history.secondComplete[1]}`) as Manifest,
    };
    const counts = TABLES.map(
      (t) => `SELECT '${t.name}' AS table_name, shop, count(*) AS n FROM ${t.name} GROUP BY shop`,
    );
    const answered = await rows(history, `${counts.join(' UNION ALL ')} ORDER BY ALL`);
    const expected = Object.entries(newest)
      .flatMap(([shop, manifest]) =>
        TABLES.map((t) => ({ table_name: t.name, shop, n: manifest.tables[t.name]?.rows ?? 0 })).filter((r) => r.n > 0),
      )
      .sort((a, b) => `${a.table_name} ${a.shop}`.localeCompare(`${b.table_name} ${b.shop}`));
    expect(answered).toEqual(expected);
    const ids = await rows(history, `SELECT id FROM orders WHERE shop = '${history.mainKey}' ORDER BY id`);
    const raw = await storedRawIds(history, `${history.mainKey}/${history.mainComplete[2]}`, 'orders');
    expect(ids.map((row) => String(row.id))).toEqual(raw.sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1)));
    expect(raw.some((id) => BigInt(id) > 2n ** 53n)).toBe(true);
  });

  it('--all-snapshots: every complete snapshot, told apart by snapshot_id; --snapshot: one, by its id', async () => {
    const history = historyOf();
    const manifests = await storedManifests(history);
    const complete = [...manifests.values()].filter((m) => m.status === 'complete');
    expect(complete).toHaveLength(5);
    const all = await rows(
      history,
      'SELECT shop, snapshot_id, count(*) AS n FROM customers GROUP BY ALL ORDER BY ALL',
      '--all-snapshots',
    );
    expect(all).toEqual(
      complete.map((m) => ({ shop: m.shop, snapshot_id: m.snapshot_id, n: m.tables.customers?.rows })),
    );
    expect(all.map((row) => row.snapshot_id)).not.toContain(history.mainUnfinished);
    const [first] = history.mainComplete;
    // In the shop's folder: that shop alone (a job's shops may start in the same millisecond, so share an id).
    const folder = `${history.out}/${history.mainKey}`;
    const one = await query(history, ['SELECT count(*) AS n FROM orders', '--snapshot', first, '--json'], folder);
    expect(JSON.parse(one.stdout)).toEqual([{ n: manifests.get(`${history.mainKey}/${first}`)?.tables.orders?.rows }]);
    // One shop: no shop column.
    const columns = await query(
      history,
      ['SELECT * FROM orders LIMIT 1', '--snapshot', first, '--format', 'csv'],
      folder,
    );
    expect(columns.stdout.split('\n')[0]?.startsWith('id,')).toBe(true);
  });

  it('snapshots: one row per manifest with its counts, checks and changes; files: every file a manifest lists', async () => {
    const history = historyOf();
    const manifests = [...(await storedManifests(history)).values()];
    const answered = await rows(
      history,
      `SELECT shop, snapshot_id, status, epoch_ms(started_at) AS started_ms, orders, orders_count_before, orders_count_after, orders_check,
              orders_added, orders_removed, orders_changed, customers_added, requests
       FROM snapshots ORDER BY shop, snapshot_id`,
    );
    expect(answered).toEqual(
      manifests.map((m) => ({
        shop: m.shop,
        snapshot_id: m.snapshot_id,
        status: m.status,
        started_ms: Date.parse(m.started_at),
        orders: m.resources.orders?.exported,
        orders_count_before: m.resources.orders?.count_before,
        orders_count_after: m.resources.orders?.count_after,
        orders_check: m.resources.orders?.check,
        orders_added: m.changes?.resources.orders?.added ?? null,
        orders_removed: m.changes?.resources.orders?.removed ?? null,
        orders_changed: m.changes?.resources.orders?.changed ?? null,
        customers_added: m.changes?.resources.customers?.added ?? null,
        requests: Object.values(m.resources).reduce((sum, r) => sum + (r?.requests ?? 0), 0),
      })),
    );
    // Night 2 of the main shop: the order created mid-crawl moved the count, and the six deleted orders are gone.
    // By shop too: the two shops' runs start together, and their snapshot ids may fall in the same millisecond.
    const night2 = answered.find((row) => row.shop === history.mainKey && row.snapshot_id === history.mainComplete[1]);
    expect(night2).toMatchObject({ orders_check: 'drift', orders_removed: 6 });
    expect(Number(night2?.orders_count_after)).toBe(Number(night2?.orders_count_before) + 1);

    const files = await rows(
      history,
      'SELECT shop, snapshot_id, count(*) AS files, sum(bytes) AS bytes FROM files GROUP BY ALL ORDER BY ALL',
    );
    expect(files).toEqual(
      manifests.map((m) => ({
        shop: m.shop,
        snapshot_id: m.snapshot_id,
        files: m.files.length,
        bytes: m.files.reduce((sum, f) => sum + f.bytes, 0),
      })),
    );
  });

  it('a table on the terminal: the first --max-rows rows, aligned, then the total', async () => {
    const history = historyOf();
    const result = await query(history, [
      `SELECT id, total_price FROM orders WHERE shop = '${history.mainKey}' ORDER BY id`,
      '--max-rows',
      '3',
    ]);
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(5);
    expect(lines[0]).toMatch(/^ +id {2}total_price$/);
    // Figures right-aligned: each row as wide as the header.
    for (const line of lines.slice(1, 4)) expect(line).toMatch(/^ *\d+ +\d+\.\d{4}$/);
    for (const line of lines.slice(1, 4)) expect(line.length).toBe(lines[0]?.length);
    const manifest = (await storedManifests(history)).get(`${history.mainKey}/${history.mainComplete[2]}`);
    const total = (manifest?.tables.orders?.rows ?? 0).toLocaleString('en-US');
    expect(lines[4]).toBe(`${total} rows, the first 3 shown (--max-rows; --format csv for all)`);
  });

  it('--schema lists every view with its columns and types: shop first with two shops, then the table’s own', async () => {
    const history = historyOf();
    const listed = await query(history, ['--schema', '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    const views = JSON.parse(listed.stdout).views as Array<{ name: string; columns: { name: string; type: string }[] }>;
    expect(views.map((v) => v.name)).toEqual([...TABLES.map((t) => t.name), 'snapshots', 'files']);
    const orders = views.find((v) => v.name === 'orders');
    const declared = TABLES.find((t) => t.name === 'orders')?.columns ?? [];
    expect(orders?.columns.map((c) => c.name)).toEqual(['shop', ...declared.map((c) => c.name)]);
    expect(orders?.columns.find((c) => c.name === 'total_price')?.type).toBe('DECIMAL(18,4)');
    const text = await query(history, ['--schema']);
    expect(text.stdout).toContain('\norders\n  shop ');
  });

  it('errors from DuckDB come back as one line naming their place in the SQL (exit 2)', async () => {
    const history = historyOf();
    const bad = await query(history, ['SELECT id,\n  nope FROM orders']);
    expect(bad.code).toBe(2);
    expect(failureLine(bad.stderr)).toMatch(
      /^shopsnap: query: Binder Error at line 2, column 3 \(near "nope FROM orders"\): Referenced column "nope" not found/,
    );
    expect(bad.stderr.trimEnd().split('\n')).toHaveLength(1);
    const unparsable = await query(history, ['SELEC * FROM orders']);
    expect([unparsable.code, failureLine(unparsable.stderr)]).toEqual([
      2,
      'shopsnap: query: Parser Error at line 1, column 1 (near "SELEC * FROM orders"): syntax error at or near "SELEC"',
    ]);
    const two = await query(history, ['SELECT 1; SELECT 2']);
    expect([two.code, failureLine(two.stderr)]).toEqual([
      2,
      'shopsnap: the query must be one SQL statement; this holds 2',
    ]);
    const unknown = await query(history, ['SELECT 1 AS x', '--snapshot', '20200101T000000000Z']);
    expect([unknown.code, failureLine(unknown.stderr)]).toEqual([
      2,
      `shopsnap: no snapshot 20200101T000000000Z with a manifest under ${history.out.replace(/\/$/, '')}`,
    ]);
  });
});

describe('shopsnap query: files and formats', () => {
  const ordersSql = () => `SELECT id, total_price, created_at FROM orders WHERE shop = '${local.mainKey}' ORDER BY id`;

  it('csv, ndjson and json hold the same rows with exact ids; parquet (--out) keeps the types', async () => {
    const csv = await query(local, [ordersSql(), '--format', 'csv']);
    const ndjson = await query(local, [ordersSql(), '--format', 'ndjson']);
    const json = await query(local, [ordersSql(), '--json']);
    const raw = (await storedRawIds(local, `${local.mainKey}/${local.mainComplete[2]}`, 'orders')).sort((a, b) =>
      BigInt(a) < BigInt(b) ? -1 : 1,
    );
    expect(csv.stdout.split('\n')[0]).toBe('id,total_price,created_at');
    expect(
      csv.stdout
        .trimEnd()
        .split('\n')
        .slice(1)
        .map((line) => line.split(',')[0]),
    ).toEqual(raw);
    expect(
      ndjson.stdout
        .trimEnd()
        .split('\n')
        .map((line) => /^\{"id":(\d+),/.exec(line)?.[1]),
    ).toEqual(raw);
    expect([...json.stdout.matchAll(/\{"id":(\d+),/g)].map((match) => match[1])).toEqual(raw);

    const path = join(work, 'orders.parquet');
    const written = await query(local, [ordersSql(), '--out', path]);
    expect([written.code, written.stdout]).toEqual([0, `${path}\n`]);
    const readBack = await withDuckDb({}, async (db) => {
      const described = await db.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet(${sqlString(path)})`);
      const ids = await db.runAndReadAll(`SELECT id::VARCHAR FROM read_parquet(${sqlString(path)})`);
      return { types: described.getRows().map(([name, type]) => `${name} ${type}`), ids: ids.getRows().flat() };
    });
    expect(readBack).toEqual({
      types: ['id BIGINT', 'total_price DECIMAL(18,4)', 'created_at TIMESTAMP WITH TIME ZONE'],
      ids: raw,
    });
    const unwritable = await query(local, [ordersSql(), '--out', join(work, 'no-such-folder', 'x.csv')]);
    expect([unwritable.code, failureLine(unwritable.stderr)]).toEqual([
      1,
      `shopsnap: cannot write ${join(work, 'no-such-folder', 'x.csv')}: no such file or directory (ENOENT)`,
    ]);
  });

  it('a bucket gives only the files of the tables the query names', async () => {
    const named = await query(bucket, ["SELECT count(*) AS n FROM query_table('order_' || 'refunds')"]);
    expect([named.code, failureLine(named.stderr)]).toEqual([
      2,
      'shopsnap: query: Invalid Input Error: order_refunds: its files were not fetched, because the query does not name the table',
    ]);
  });

  it('snapshots written before the lineage columns (schema version 1) read as the others, shop and id from the manifest', async () => {
    const source = join(local.out, local.mainKey, local.mainComplete[0]);
    const legacy = join(local.out, 'legacy-shop', local.mainComplete[0]);
    await cp(source, legacy, { recursive: true });
    const manifest: Manifest = JSON.parse(await readFile(join(legacy, 'manifest.json'), 'utf8'));
    await withDuckDb({}, async (db) => {
      for (const file of manifest.files.filter((f) => f.format === 'parquet')) {
        const path = join(legacy, file.path);
        await db.run(
          `COPY (SELECT * EXCLUDE (_shop, _snapshot_id) FROM read_parquet(${sqlString(path)})) TO ${sqlString(`${path}.v1`)} (FORMAT parquet)`,
        );
        await rm(path);
        await cp(`${path}.v1`, path);
        await rm(`${path}.v1`);
        Object.assign(file, await hashFile(path));
      }
    });
    manifest.shop = 'legacy-shop';
    manifest.schema_version = 1;
    await writeFile(join(legacy, 'manifest.json'), JSON.stringify(manifest));
    try {
      const answered = await rows(
        local,
        "SELECT shop, snapshot_id, count(*) AS n FROM order_line_items WHERE shop = 'legacy-shop' GROUP BY ALL",
        '--all-snapshots',
      );
      expect(answered).toEqual([
        { shop: 'legacy-shop', snapshot_id: local.mainComplete[0], n: manifest.tables.order_line_items?.rows },
      ]);
      const verified = await runCli(['verify', legacy]);
      expect(verified.code, verified.stdout).toBe(0);
    } finally {
      await rm(join(local.out, 'legacy-shop'), { recursive: true, force: true });
    }
  });
});
