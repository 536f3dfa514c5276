import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningShop, startShop } from '../../src/simulator/index.js';
import { S3Storage } from '../../src/storage/s3-storage.js';
import { lastLine, runCli } from '../helpers/cli.js';
import { BUCKET, S3RVER_CLI_ENV, s3rverCliFlags, s3rverOptions } from '../helpers/s3-fixture.js';
import { type S3rverProcess, startS3rver } from '../helpers/s3rver-process.js';
import { clientFor } from '../simulator/shop-client.js';

const TOKEN = 'shpat_s3_e2e_51ab';

let shop: RunningShop;
let s3: S3rverProcess;

beforeAll(async () => {
  [shop, s3] = await Promise.all([
    startShop({ seed: 3, products: 200, customers: 600, orders: 1800, token: TOKEN, bigIdShare: 0.2 }),
    startS3rver([BUCKET]),
  ]);
});

afterAll(async () => {
  await Promise.all([shop.close(), s3.stop()]);
});

function backup(prefix: string, env: Record<string, string> = {}) {
  return runCli(
    [
      'backup',
      '--shop',
      shop.url,
      '--out',
      `s3://${BUCKET}/${prefix}`,
      '--depth',
      '3',
      '--checkpoint-interval',
      '0.2',
      '--json',
      ...s3rverCliFlags(s3.endpoint),
    ],
    { env: { SHOPSNAP_TOKEN: TOKEN, ...S3RVER_CLI_ENV, ...env } },
  );
}

async function keysUnder(prefix: string): Promise<string[]> {
  const storage = new S3Storage({ bucket: BUCKET, prefix, ...s3rverOptions(s3.endpoint) });
  const keys: string[] = [];
  for await (const object of storage.list('')) keys.push(object.key);
  return keys;
}

describe('shopsnap backup --out s3://… against a real S3-protocol server', () => {
  it('lands a complete snapshot that verify s3://… proves, object by object', async () => {
    const result = await backup('nightly');
    expect(result.code, result.stderr).toBe(0);
    const { manifest, location } = JSON.parse(result.stdout);
    expect(location).toMatch(new RegExp(`^s3://${BUCKET}/nightly/127\\.0\\.0\\.1-\\d+/\\d{8}T\\d{9}Z$`));
    expect(manifest.status).toBe('complete');
    for (const resource of ['products', 'customers', 'orders'] as const) {
      expect(manifest.resources[resource].exported).toBe(shop.count(resource));
    }
    const keys = await keysUnder('nightly');
    const snapshotKeys = keys.filter((key) => key.includes(`/${manifest.snapshot_id}/`));
    expect(snapshotKeys.sort()).toEqual(
      [...manifest.files.map((f: { path: string }) => f.path), 'manifest.json']
        .map((path) => `${manifest.shop}/${manifest.snapshot_id}/${path}`)
        .sort(),
    );
    // The checkpoint of a finished snapshot is gone; the lease was released.
    expect(keys.filter((key) => !snapshotKeys.includes(key))).toEqual([]);
    const verify = await runCli(['verify', location, ...s3rverCliFlags(s3.endpoint)], { env: S3RVER_CLI_ENV });
    expect(verify.stderr).toBe('');
    expect(lastLine(verify.stdout)).toBe(`OK ${location}`);
    expect(verify.code).toBe(0);
  });

  it('the next night records its changes against the first, and diff reads both from the bucket', async () => {
    const [first] = (await keysUnder('nightly')).filter((key) => key.endsWith('/manifest.json'));
    const customer = String([...shop.records('customers')][7]?.id);
    const note = { customer: { id: customer, note: 'moved to Lyon' } };
    expect((await clientFor(shop).put(`/customers/${customer}.json`, note)).status).toBe(200);
    const result = await backup('nightly');
    expect(result.code, result.stderr).toBe(0);
    const { manifest } = JSON.parse(result.stdout);
    const none = { added: 0, removed: 0, changed: 0 };
    expect(manifest.changes).toEqual({
      since: first?.split('/').at(-2),
      resources: { products: none, customers: { ...none, changed: 1 }, orders: none },
    });

    // diff reads the indexes from the bucket, and the changed record's text by ranged reads of its gzip members.
    const details = join(await mkdtemp(join(tmpdir(), 'shopsnap-s3-diff-')), 'details.ndjson');
    const shopFolder = `s3://${BUCKET}/nightly/${manifest.shop}`;
    const diff = await runCli(['diff', shopFolder, '--json', '--details', details, ...s3rverCliFlags(s3.endpoint)], {
      env: S3RVER_CLI_ENV,
    });
    expect(diff.code, diff.stderr).toBe(0);
    expect(JSON.parse(diff.stdout).resources.customers).toEqual({
      ...none,
      changed: 1,
      unchanged: shop.count('customers') - 1,
    });
    const [line, ...more] = (await readFile(details, 'utf8')).trimEnd().split('\n');
    expect(more).toEqual([]);
    const { fields, ...record } = JSON.parse(line as string);
    expect(record).toEqual({ resource: 'customers', id: customer, change: 'changed' });
    expect(fields.find((field: { path: string }) => field.path === '$.note').after).toBe('moved to Lyon');
    await rm(join(details, '..'), { recursive: true, force: true });
  });

  it('a run killed mid-upload leaves no manifest in the bucket, and the rerun resumes it to a verified snapshot', async () => {
    const killed = await backup('killed', { TEST_SHOPSNAP_CRASH_AT: 'between-uploads:6' });
    expect(killed.signal).toBe('SIGKILL');
    const left = await keysUnder('killed');
    expect(
      left.some((key) => key.endsWith('.parquet') || key.endsWith('.gz')),
      'parts were uploaded',
    ).toBe(true);
    expect(left.filter((key) => key.endsWith('manifest.json'))).toEqual([]);

    const rerun = await backup('killed');
    expect(rerun.code, rerun.stderr).toBe(0);
    const { manifest, location } = JSON.parse(rerun.stdout);
    expect(manifest.resumed?.attempts).toBe(1);
    expect(manifest.resources.orders.exported).toBe(shop.count('orders'));
    const verify = await runCli(['verify', location, ...s3rverCliFlags(s3.endpoint)], { env: S3RVER_CLI_ENV });
    expect(lastLine(verify.stdout)).toBe(`OK ${location}`);
  });

  it('a missing bucket fails fast, naming it, with nothing written', async () => {
    const result = await runCli(
      ['backup', '--shop', shop.url, '--out', 's3://no-such-bucket/x', ...s3rverCliFlags(s3.endpoint)],
      { env: { SHOPSNAP_TOKEN: TOKEN, ...S3RVER_CLI_ENV } },
    );
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/no-such-bucket/);
    expect(result.stderr.trim().split('\n'), result.stderr).toHaveLength(1);
  });
});
