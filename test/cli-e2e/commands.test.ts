import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withDuckDb } from '../../src/sink/duckdb.js';
import { lastLine, runCli } from '../helpers/cli.js';

let work: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'shopsnap-commands-'));
});

afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

describe('shopsnap commands as a user runs them (built binary)', () => {
  it('demo backs the simulated shop up into ./snapshots and prints a DuckDB query that reads it', async () => {
    // A shell set up for real backups (README) must neither break the demo nor redirect it.
    const env = { SHOPSNAP_TOKEN: 'shpat_real', SHOPSNAP_SHOP: 'real-shop', SHOPSNAP_OUT: join(work, 'real-backups') };
    const demo = await runCli(['demo', '--orders', '300', '--customers', '120', '--products', '40'], {
      cwd: work,
      env,
    });
    expect(demo.code, demo.stderr).toBe(0);
    const location = lastLine(demo.stdout);
    expect(location.startsWith(join(work, 'snapshots'))).toBe(true);
    const manifest = JSON.parse(await readFile(join(location, 'manifest.json'), 'utf8'));
    expect(manifest.status).toBe('complete');
    expect(manifest.resources.orders.exported).toBe(manifest.resources.orders.count_after);

    const query = /SELECT .*;$/m.exec(demo.stderr)?.[0];
    expect(query, demo.stderr).toBeDefined();
    const orders = await withDuckDb({}, async (db) => {
      await db.run(`SET file_search_path = '${work}'`);
      const rows = (await db.runAndReadAll(query as string)).getRowObjectsJS();
      return rows.reduce((sum, row) => sum + Number(row['count_star()']), 0);
    });
    expect(orders).toBe(manifest.resources.orders.exported);

    const verify = await runCli(['verify', location]);
    expect(verify.code, verify.stderr).toBe(0);
  });

  it('schema lists every table with its columns and types', async () => {
    const schema = await runCli(['schema']);
    expect(schema.code).toBe(0);
    for (const table of ['products', 'product_variants', 'customers', 'customer_addresses', 'orders']) {
      expect(schema.stdout).toMatch(new RegExp(`^${table} \\(resource `, 'm'));
    }
    expect(schema.stdout).toMatch(/^ {2}id +int64 +BIGINT$/m);
    expect(schema.stdout).toMatch(/^ {2}total_price +decimal +DECIMAL\(18,4\)$/m);
    expect(schema.stdout).toMatch(/^ {2}_extra +json +/m);
  });

  it('a bad job file exits 2 and names every problem with its path', async () => {
    const job = join(work, 'bad.yaml');
    await writeFile(
      job,
      'shops:\n  - shop: "../escape"\n    token_env: 5\nresources: [products, widgets]\ndepth: -1\nformats: parquet\n',
    );
    const result = await runCli(['run', job]);
    expect(result.code).toBe(2);
    const lines = result.stderr.trim().split('\n');
    expect(lines[0]).toBe(`shopsnap: invalid job file ${job}:`);
    expect(lines).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^ {2}- shops\[0\]\.shop: invalid shop "\.\.\/escape"/),
        '  - shops[0].token_env: must be text',
        '  - resources[1]: "widgets" is not one of products, customers, orders',
        '  - depth: must be a whole number from 1 to 100',
        '  - formats: must be a non-empty list of parquet, ndjson, raw',
        '  - out: required, a directory or s3://bucket/prefix',
      ]),
    );
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });
});
