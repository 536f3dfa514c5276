import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_PREFIX } from '../../src/shopify/resources.js';
import { type RunningShop, startShop } from '../../src/simulator/index.js';
import { CLI, lastLine, runCli } from '../helpers/cli.js';
import { queryIn, type SqlRow } from '../helpers/duckdb-query.js';
import { filesUnder, gunzipLines, manifestsUnder } from '../helpers/snapshot-files.js';
import { deletableOrders } from '../simulator/shop-client.js';

const TOKEN = 'shpat_queries_3d81';
const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
/** Every ```sql block of the README, named by its first line (a `-- …` comment saying what it answers). */
const README_QUERIES = [...README.matchAll(/^```sql\n([\s\S]*?)^```$/gm)].map((match) => {
  const sql = match[1] as string;
  return { name: sql.split('\n')[0] as string, sql };
});

let shop: RunningShop;
let work: string;

beforeAll(async () => {
  shop = await startShop({ seed: 17, products: 5, customers: 5, orders: 400, token: TOKEN, bigIdShare: 0.1 });
  work = await mkdtemp(join(tmpdir(), 'shopsnap-queries-'));
});

afterAll(async () => {
  await shop.close();
  await rm(work, { recursive: true, force: true });
});

/** A backup as a user types it in their folder: `--out snapshots`, relative. */
function backup(env: Record<string, string> = {}) {
  return runCli(['backup', '--shop', shop.url, '--out', 'snapshots', '--resources', 'orders', '--json'], {
    cwd: work,
    env: { SHOPSNAP_TOKEN: TOKEN, ...env },
  });
}

/** The demo in the user's folder, from a shell set up for real backups (README): neither broken nor redirected by it. */
function demo() {
  return runCli(['demo', '--orders', '300', '--customers', '60', '--products', '20'], {
    cwd: work,
    env: { SHOPSNAP_TOKEN: 'shpat_real', SHOPSNAP_SHOP: 'real-shop', SHOPSNAP_OUT: join(work, 'real-backups') },
  });
}

/** What a snapshot's raw archive says, read without DuckDB: the answers the queries must give. */
interface OrderFacts {
  shop: string;
  id: string;
  status: string;
  orders: Array<{ financial_status: string; total_price: string; line_items: Array<{ tax_lines: TaxLine[] }> }>;
}
interface TaxLine {
  title: string;
  rate: number;
  price: string;
}

async function snapshotsOnDisk(): Promise<OrderFacts[]> {
  const found: OrderFacts[] = [];
  for (const path of (await manifestsUnder(join(work, 'snapshots'))).sort()) {
    const manifest = JSON.parse(await readFile(path, 'utf8'));
    const raw = join(path, '..', 'raw', 'orders');
    const orders = [];
    for (const part of (await readdir(raw)).sort()) {
      for (const line of await gunzipLines(join(raw, part))) orders.push(JSON.parse(line));
    }
    found.push({ shop: manifest.shop, id: manifest.snapshot_id, status: manifest.status, orders });
  }
  return found;
}

/** Money as DuckDB prints a DECIMAL(38,4) sum, computed in ten-thousandths (never through a float). */
function sumMoney(amounts: string[]): string {
  const total = amounts.reduce((sum, amount) => {
    const [whole = '0', fraction = ''] = amount.split('.');
    return sum + BigInt(whole) * 10_000n + BigInt(fraction.padEnd(4, '0'));
  }, 0n);
  return `${total / 10_000n}.${String(total % 10_000n).padStart(4, '0')}`;
}

/** Map.groupBy, which Node 20 lacks. */
function groupBy<T>(items: T[], keyOf: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) groups.set(keyOf(item), [...(groups.get(keyOf(item)) ?? []), item]);
  return groups;
}

function ordersByStatus(snapshot: OrderFacts): SqlRow[] {
  const byStatus = groupBy(snapshot.orders, (order) => order.financial_status);
  return [...byStatus].map(([financial_status, orders]) => ({
    shop: snapshot.shop,
    snapshot_id: snapshot.id,
    financial_status,
    orders: String(orders.length),
    revenue: sumMoney(orders.map((order) => order.total_price)),
  }));
}

function taxByTitleAndRate(snapshot: OrderFacts): SqlRow[] {
  const lines = snapshot.orders.flatMap((order) => order.line_items.flatMap((item) => item.tax_lines ?? []));
  const byTax = groupBy(lines, (line) => `${line.title}\n${line.rate}`);
  return [...byTax.values()].map((group) => ({
    shop: snapshot.shop,
    snapshot_id: snapshot.id,
    title: (group[0] as TaxLine).title,
    rate: (group[0] as TaxLine).rate,
    tax_lines: String(group.length),
    tax: sumMoney(group.map((line) => line.price)),
  }));
}

function newestCompleteOfEachShop(snapshots: OrderFacts[]): OrderFacts[] {
  const newest = new Map<string, OrderFacts>();
  for (const snapshot of snapshots.filter((s) => s.status === 'complete')) {
    if ((newest.get(snapshot.shop)?.id ?? '') < snapshot.id) newest.set(snapshot.shop, snapshot);
  }
  return [...newest.values()];
}

/** The answer each README query must give, by its first line. */
const EXPECTED: Record<string, (snapshots: OrderFacts[]) => SqlRow[]> = {
  '-- newest complete snapshot of each shop: orders and revenue by financial status': (snapshots) =>
    newestCompleteOfEachShop(snapshots).flatMap(ordersByStatus),
  '-- every complete snapshot: orders and revenue by financial status': (snapshots) =>
    snapshots.filter((snapshot) => snapshot.status === 'complete').flatMap(ordersByStatus),
  "-- newest complete snapshot of each shop: line items' tax_lines per tax title and rate": (snapshots) =>
    newestCompleteOfEachShop(snapshots).flatMap(taxByTitleAndRate),
};

function sorted(rows: SqlRow[]): SqlRow[] {
  return rows
    .map((row) => JSON.stringify(row, Object.keys(row).sort()))
    .sort()
    .map((row) => JSON.parse(row));
}

describe('the queries the demo prints and the README shows count complete snapshots only', () => {
  let demoQuery: string;
  let demoLocation: string;
  let unfinishedId: string;
  let incompleteId: string;

  beforeAll(async () => {
    // One folder as a user's nightly runs leave it: two complete snapshots of a shop, then one kept as incomplete
    // (most orders gone: a suspicious shrink), then a run killed just before its manifest, all its parts committed.
    for (const night of [1, 2]) {
      const complete = await backup();
      expect(complete.code, `night ${night}: ${complete.stderr}`).toBe(0);
    }
    const deletable = deletableOrders(shop);
    expect(deletable.length).toBeGreaterThan(shop.count('orders') / 2);
    for (const order of deletable) {
      const deleted = await fetch(`${shop.url}${API_PREFIX}/orders/${order.id}.json`, {
        method: 'DELETE',
        headers: { 'x-shopify-access-token': TOKEN },
      });
      expect(deleted.status).toBe(200);
    }
    const shrunk = await backup();
    expect(shrunk.code, shrunk.stderr).toBe(8);
    incompleteId = JSON.parse(shrunk.stdout).manifest.snapshot_id;
    const killed = await backup({ TEST_SHOPSNAP_CRASH_AT: 'before-manifest' });
    expect(killed.signal, killed.stderr).toBe('SIGKILL');
    const shopFolder = join(work, 'snapshots', lastLine(JSON.parse(shrunk.stdout).location).split('/').at(-2) ?? '');
    const ids = (await readdir(shopFolder)).filter((name) => /^\d{8}T/.test(name)).sort();
    unfinishedId = ids.at(-1) as string;
    expect(ids).toHaveLength(4);
    // What makes a careless query wrong is in place: the interrupted run's orders lie beside the others.
    expect((await filesUnder(join(shopFolder, unfinishedId))).some((file) => file.endsWith('.parquet'))).toBe(true);
    expect(await manifestsUnder(join(shopFolder, unfinishedId))).toEqual([]);

    // Two demos in the same folder: snapshots of one shop, whatever port its simulated shop listened on.
    for (const run of [1, 2]) {
      const result = await demo();
      expect(result.code, `demo ${run}: ${result.stderr}`).toBe(0);
      demoLocation = lastLine(result.stdout);
      demoQuery = /^ {2}(npx -- shopsnap query .*)$/m.exec(result.stderr)?.[1] ?? '';
      expect(result.stderr).toContain(`shopsnap verify ${demoLocation}`);
    }
  }, 240_000);

  it('two demos are two snapshots of one shop folder', async () => {
    const demoShop = join(work, 'snapshots', 'shopsnap-demo-o300-c60-p20');
    expect(demoLocation.startsWith(`${demoShop}/`)).toBe(true);
    const snapshots = (await readdir(demoShop)).filter((name) => /^\d{8}T/.test(name));
    expect(snapshots).toHaveLength(2);
    expect(await manifestsUnder(demoShop)).toHaveLength(2);
  });

  it("the demo's shopsnap query runs as printed, from the user's folder, on the snapshot just written", async () => {
    const id = demoLocation.split('/').at(-1) as string;
    expect(demoQuery).toBe(
      'npx -- shopsnap query snapshots/shopsnap-demo-o300-c60-p20 "SELECT financial_status, count(*) AS orders, sum(total_price) AS revenue FROM orders GROUP BY ALL ORDER BY ALL"',
    );
    // The line goes to a shell as a user pastes it; `npx -- shopsnap` runs this checkout's build, as in the project.
    const bin = await mkdtemp(join(tmpdir(), 'shopsnap-npx-'));
    await writeFile(
      join(bin, 'npx'),
      `#!/bin/sh\n[ "$1" = -- ] && shift\n[ "$1" = shopsnap ] && shift\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} "$@"\n`,
      { mode: 0o755 },
    );
    const ran = spawnSync('sh', ['-c', demoQuery], {
      cwd: work,
      env: { PATH: `${bin}:${process.env.PATH}`, HOME: process.env.HOME ?? '' },
      encoding: 'utf8',
    });
    await rm(bin, { recursive: true, force: true });
    expect(ran.status, ran.stderr).toBe(0);
    const lines = ran.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^financial_status +orders +revenue$/);
    const answered = lines.slice(1, -1).map((line) => {
      const [financial_status, orders, revenue] = line.trim().split(/ {2,}/);
      return { financial_status, orders, revenue } as SqlRow;
    });
    const snapshot = (await snapshotsOnDisk()).find((s) => s.id === id) as OrderFacts;
    const expected = ordersByStatus(snapshot).map(({ shop: _, snapshot_id: __, ...row }) => row);
    expect(sorted(answered)).toEqual(sorted(expected));
    expect(lines.at(-1)).toBe(`${expected.length} rows`);
    // The README shows the same command.
    expect(README.replace(/\s+/g, ' ')).toContain(demoQuery.replace('shopsnap-demo-o300-c60-p20', 'shopsnap-demo'));
  });

  it('the README has the queries this test checks, and nothing else', () => {
    expect(README_QUERIES.map((query) => query.name).sort()).toEqual(Object.keys(EXPECTED).sort());
  });

  it.each(README_QUERIES.map((query) => [query.name, query.sql]))(
    'README %s: runs as written and counts only complete snapshots',
    async (name, sql) => {
      const snapshots = await snapshotsOnDisk();
      const expected = sorted((EXPECTED[name] as (s: OrderFacts[]) => SqlRow[])(snapshots));
      expect(expected.length).toBeGreaterThan(0);
      const answered = sorted(await queryIn(work, sql));
      expect(answered).toEqual(expected);
      for (const row of answered) expect([unfinishedId, incompleteId]).not.toContain(row.snapshot_id);
      // `./snapshots/…` is the same folder, and the same answer.
      expect(sorted(await queryIn(work, sql.replaceAll("'snapshots/", "'./snapshots/")))).toEqual(expected);
    },
  );
});
