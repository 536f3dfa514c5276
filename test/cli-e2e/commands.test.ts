import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { runCli } from '../helpers/cli.js';

let work: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'shopsnap-commands-'));
});

afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

describe('shopsnap commands as a user runs them (built binary)', () => {
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
      'shops:\n  - shop: "../escape"\n    token_env: 5\nresources: [products, widgets]\ndepth: -1\nformats: parquet, csv\n',
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
        '  - formats: "csv" is not one of parquet, ndjson, raw',
        '  - out: required, a directory or s3://bucket/prefix',
      ]),
    );
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });
});
