import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import PQueue from 'p-queue';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseShopAddress } from '../../src/cli/shop-address.js';
import type { FleetSummary } from '../../src/runner/run-job.js';
import { selectShard } from '../../src/runner/shard.js';
import { RESOURCES } from '../../src/shopify/resources.js';
import { type RatePreset, type RunningShop, startShop } from '../../src/simulator/index.js';
import { MANIFEST_NAME, parseManifest } from '../../src/snapshot/manifest.js';
import { S3Storage } from '../../src/storage/s3-storage.js';
import { readObjectText } from '../../src/storage/storage.js';
import { type CliResult, runCli } from '../helpers/cli.js';
import { BUCKET, s3rverOptions } from '../helpers/s3-fixture.js';
import { S3RVER_CREDENTIALS, type S3rverProcess, startS3rver } from '../helpers/s3rver-process.js';
import { startStatusShop } from '../helpers/status-shop.js';

const SHOPS = 30;
const S3RVER_ENV = {
  AWS_ACCESS_KEY_ID: S3RVER_CREDENTIALS.accessKeyId,
  AWS_SECRET_ACCESS_KEY: S3RVER_CREDENTIALS.secretAccessKey,
  AWS_REGION: 'us-east-1',
};
const S3RVER_FLAGS = (endpoint: string) => [
  '--s3-endpoint',
  endpoint,
  '--s3-force-path-style',
  '--s3-checksum',
  'when-required',
];
const RATES: RatePreset[] = ['unlimited', 'plus', 'standard'];

interface FleetShop {
  url: string;
  key: string;
  tokenEnv: string;
  token: string;
  healthy: boolean;
  close: () => Promise<void>;
  simulated?: RunningShop;
}

let s3: S3rverProcess;
let work: string;
const fleet: FleetShop[] = [];

beforeAll(async () => {
  s3 = await startS3rver([BUCKET]);
  work = await mkdtemp(join(tmpdir(), 'shopsnap-fleet-'));
  for (let i = 0; i < SHOPS; i++) {
    const tokenEnv = `TOKEN_SHOP_${i}`;
    const token = `shpat_fleet_${i}_canary`;
    if (i === 7) {
      const locked = await startStatusShop(423, { errors: 'Locked' });
      fleet.push({ url: locked.url, key: '', tokenEnv, token, healthy: false, close: locked.close });
      continue;
    }
    const simulated = await startShop({
      seed: i,
      products: 5 + i,
      customers: 10 + i * 3,
      orders: 20 + i * 7,
      rate: RATES[i % RATES.length],
      // shop 13 answers every token with 401: a revoked app
      token: i === 13 ? 'shpat_someone_else' : token,
      faults: i % 10 === 4 ? { serverErrorRate: 0.2, seed: i } : {},
    });
    fleet.push({ url: simulated.url, key: '', tokenEnv, token, healthy: i !== 13, close: simulated.close, simulated });
  }
  for (const shop of fleet) shop.key = parseShopAddress(shop.url).key;
  const job = [
    'name: fleet-test',
    'shops:',
    ...fleet.flatMap((shop) => [`  - shop: "${shop.url}"`, `    token_env: ${shop.tokenEnv}`]),
    'formats: [parquet, raw]',
    'parallel_shops: 4',
    `out: s3://${BUCKET}/fleet`,
    's3:',
    `  endpoint: ${s3.endpoint}`,
    '  region: us-east-1',
    '  force_path_style: true',
    '  checksum: when-required',
  ].join('\n');
  await writeFile(join(work, 'fleet.yaml'), `${job}\n`);
});

afterAll(async () => {
  await Promise.all(fleet.map((shop) => shop.close()));
  await s3?.stop();
  await rm(work, { recursive: true, force: true });
});

describe('a fleet of 30 shops on 3 workers into one S3 bucket', () => {
  it('backs up every healthy shop exactly once and reports the failing ones', { timeout: 120_000 }, async () => {
    const env: Record<string, string> = { ...S3RVER_ENV };
    for (const shop of fleet) env[shop.tokenEnv] = shop.token;
    const workers = await Promise.all(
      [0, 1, 2].map((index) => runCli(['run', join(work, 'fleet.yaml'), '--shard', `${index}/3`], { env: { ...env } })),
    );
    const storage = new S3Storage({ bucket: BUCKET, prefix: 'fleet', ...s3rverOptions(s3.endpoint) });
    const snapshots = new Map<string, string[]>();
    const summaries: FleetSummary[] = [];
    for await (const object of storage.list('')) {
      const [shopKey = '', snapshot = '', name] = object.key.split('/');
      if (name === MANIFEST_NAME) snapshots.set(shopKey, [...(snapshots.get(shopKey) ?? []), `${shopKey}/${snapshot}`]);
      if (object.key.startsWith('fleet-summary.shard-')) {
        summaries.push(JSON.parse(await readObjectText(storage, object.key)) as FleetSummary);
      }
    }

    // A missing snapshot is explained by what its worker reported of the shop, or by the worker's exit.
    const reported = new Map(summaries.flatMap((summary) => summary.shops.map((entry) => [entry.shop, entry])));
    const exits = workers.map((worker) => worker.code).join(', ');
    const verifications = new PQueue({ concurrency: 3 });
    const verified: Promise<CliResult>[] = [];
    for (const shop of fleet) {
      const found = snapshots.get(shop.key) ?? [];
      const outcome = JSON.stringify(reported.get(shop.key) ?? `in no summary; workers exited ${exits}`);
      expect(found, `${shop.url}: ${outcome}`).toHaveLength(shop.healthy ? 1 : 0);
      const [prefix] = found;
      if (prefix === undefined || shop.simulated === undefined) continue;
      const manifest = parseManifest(await readObjectText(storage, `${prefix}/${MANIFEST_NAME}`), prefix);
      expect(manifest.status, shop.url).toBe('complete');
      for (const resource of RESOURCES) {
        expect(manifest.resources[resource]?.exported, `${shop.url} ${resource}`).toBe(shop.simulated.count(resource));
      }
      // In processes of their own: nock's pass-through in this one cuts a large body its reader falls behind on.
      const location = `${storage.location}/${prefix}`;
      verified.push(verifications.add(() => runCli(['verify', location, ...S3RVER_FLAGS(s3.endpoint)], { env })));
    }
    for (const result of await Promise.all(verified)) expect(result.code, result.stderr).toBe(0);

    // Each worker reports exactly the shops rendezvous hashing gives its shard, failures included.
    expect(summaries.map((summary) => summary.shard.index).sort()).toEqual([0, 1, 2]);
    for (const summary of summaries) {
      const mine = selectShard(fleet, summary.shard, (shop) => shop.key);
      expect(summary.shops.map((entry) => entry.shop).sort()).toEqual(mine.map((shop) => shop.key).sort());
      for (const entry of summary.shops) {
        const healthy = mine.find((shop) => shop.key === entry.shop)?.healthy;
        expect(entry.status, entry.shop).toBe(healthy ? 'complete' : 'failed');
      }
    }
    const failures = summaries.flatMap((summary) => summary.shops.filter((entry) => entry.status === 'failed'));
    expect(Object.fromEntries(failures.map((entry) => [entry.shop, entry.error]))).toEqual({
      [fleet[7]?.key ?? '']: expect.stringMatching(/^the shop is locked \(423 Locked\)/),
      [fleet[13]?.key ?? '']: expect.stringMatching(/401 Unauthorized/),
    });

    // A worker whose shard holds a failing shop exits non-zero after finishing the rest; the others exit 0.
    for (const [index, worker] of workers.entries()) {
      const mine = selectShard(fleet, { index, count: 3 }, (shop) => shop.key);
      expect(worker.code !== 0, worker.stderr).toBe(mine.some((shop) => !shop.healthy));
      expect(worker.stderr).not.toMatch(/shpat_fleet_\d+_canary/);
    }
  });

  it('keeps every existing shop on its worker when a shop is added', () => {
    const keys = fleet.map((shop) => shop.key);
    const before = [0, 1, 2].map((index) => selectShard(keys, { index, count: 3 }, (key) => key));
    const after = [0, 1, 2].map((index) => selectShard([...keys, '127.0.0.1-1'], { index, count: 3 }, (key) => key));
    for (const index of [0, 1, 2]) {
      expect(after[index]?.filter((key) => key !== '127.0.0.1-1')).toEqual(before[index]);
    }
  });
});
