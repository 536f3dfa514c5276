import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, expect } from 'vitest';
import { type RunningShop, startShop } from '../../src/simulator/index.js';
import type { Manifest } from '../../src/snapshot/manifest.js';
import { LocalDirStorage, readObjectText, type Storage } from '../../src/storage/index.js';
import { S3Storage } from '../../src/storage/s3-storage.js';
import { clientFor, deletableOrders } from '../simulator/shop-client.js';
import { type CliResult, runCli } from './cli.js';
import { BUCKET, S3RVER_CLI_ENV, s3rverCliFlags, s3rverOptions } from './s3-fixture.js';
import { startS3rver } from './s3rver-process.js';

/**
 * A destination as a small fleet's nights leave it, written by the CLI (`shopsnap run` with a job of two shops, then a
 * `backup` killed before its manifest):
 * - night 1: both shops complete;
 * - night 2: the main shop lost 6 orders, 3 customers were edited and 2 signed up since; an order is created while its
 *   orders are crawled, so its count moves (`drift`);
 * - night 3: both shops again, but the second one is frozen (402): the fleet summary says it failed;
 * - then a run of the main shop killed before its manifest: an unfinished snapshot, its parts committed.
 */
export interface BackupHistory {
  out: string;
  /** The destination, for the test's own reading (the files as stored, no shopsnap reader). */
  storage: Storage;
  /** CLI flags and environment the destination needs (s3rver's). */
  flags: string[];
  env: Record<string, string>;
  main: RunningShop;
  second: RunningShop;
  /** Shop folder names. */
  mainKey: string;
  secondKey: string;
  /** The main shop's complete snapshots, oldest first, and its unfinished one. */
  mainComplete: [string, string, string];
  mainUnfinished: string;
  secondComplete: [string, string];
  close(): Promise<void>;
}

const MAIN_TOKEN = 'shpat_history_main_41c0';
const SECOND_TOKEN = 'shpat_history_second_7e3a';

export async function writeBackupHistory(
  storage: Storage,
  out: string,
  work: string,
  flags: string[] = [],
  env: Record<string, string> = {},
): Promise<BackupHistory> {
  // Counts answer after 300 ms: long enough for the test to change the shop between a crawl's two counts.
  const main = await startShop({
    seed: 41,
    products: 8,
    customers: 30,
    orders: 120,
    token: MAIN_TOKEN,
    bigIdShare: 0.1,
    latency: { countMs: 300 },
  });
  const second = await startShop({ seed: 42, products: 4, customers: 10, orders: 25, token: SECOND_TOKEN });
  const key = (shop: RunningShop) => new URL(shop.url).host.replace(':', '-');
  const job = join(work, `history-${Math.random().toString(36).slice(2)}.yaml`);
  await writeFile(
    job,
    [
      'name: nightly',
      'shops:',
      `  - shop: ${main.url}`,
      '    token_env: MAIN_TOKEN',
      `  - shop: ${second.url}`,
      '    token_env: SECOND_TOKEN',
      `out: ${out}`,
      '',
    ].join('\n'),
  );
  const run = () =>
    runCli(['run', job, '--json', ...flags], {
      env: { MAIN_TOKEN, SECOND_TOKEN, ...env },
    });
  const complete = (result: CliResult, expected: number) => {
    expect(result.code, result.stderr).toBe(expected);
    const outcomes = JSON.parse(result.stdout).shops as Array<{ shop: string; status: string; location?: string }>;
    return (shop: RunningShop) => {
      const outcome = outcomes.find((o) => o.shop === key(shop));
      return outcome?.status === 'complete' ? (outcome.location?.split('/').at(-1) as string) : undefined;
    };
  };

  const night1 = complete(await run(), 0);

  const api = clientFor(main);
  for (const order of deletableOrders(main).slice(0, 6)) {
    expect((await api.delete(`/orders/${order.id}.json`)).status).toBe(200);
  }
  for (const customer of [...main.records('customers')].slice(0, 3)) {
    const id = String(customer.id);
    expect((await api.put(`/customers/${id}.json`, { customer: { id, note: 'called back' } })).status).toBe(200);
  }
  for (const i of [1, 2]) {
    expect((await api.post('/customers.json', { customer: { email: `signed-up-${i}@example.com` } })).status).toBe(201);
  }
  const counted = () => main.stats().byPath['GET /orders/count.json'] ?? 0;
  const before = counted();
  const nightRun = run();
  while (counted() === before) await new Promise((resolve) => setTimeout(resolve, 5));
  const order = { email: 'mid-crawl@example.com', line_items: [{ title: 'gift card', price: '25.00' }] };
  expect((await api.post('/orders.json', { order })).status).toBe(201);
  const night2 = complete(await nightRun, 0);

  second.setFaults({ failFromRequest: { after: 0, status: 402 } });
  const night3 = complete(await run(), 6);

  const killed = await runCli(['backup', '--shop', main.url, '--out', out, ...flags], {
    env: { SHOPSNAP_TOKEN: MAIN_TOKEN, TEST_SHOPSNAP_CRASH_AT: 'before-manifest', ...env },
  });
  expect(killed.signal, killed.stderr).toBe('SIGKILL');
  const unfinished = /"snapshot":"(\d{8}T\d{9}Z)"/.exec(killed.stderr)?.[1];
  expect(unfinished, killed.stderr).toBeDefined();

  const ids = [night1(main), night2(main), night3(main)];
  const secondIds = [night1(second), night2(second)];
  expect([...ids, ...secondIds].every((id) => id !== undefined)).toBe(true);
  expect(night3(second)).toBeUndefined();
  return {
    out,
    storage,
    flags,
    env,
    main,
    second,
    mainKey: key(main),
    secondKey: key(second),
    mainComplete: ids as [string, string, string],
    mainUnfinished: unfinished as string,
    secondComplete: secondIds as [string, string],
    close: async () => {
      await Promise.all([main.close(), second.close()]);
    },
  };
}

/** Every manifest of the destination, by `<shop>/<id>`, read as stored. */
export async function storedManifests(history: BackupHistory): Promise<Map<string, Manifest>> {
  const found = new Map<string, Manifest>();
  const keys: string[] = [];
  for await (const object of history.storage.list('')) {
    if (object.key.endsWith('/manifest.json')) keys.push(object.key);
  }
  for (const key of keys.sort()) {
    found.set(key.slice(0, -'/manifest.json'.length), JSON.parse(await readObjectText(history.storage, key)));
  }
  return found;
}

/** The exact ids of a snapshot's raw archive of one resource, read as stored. */
export async function storedRawIds(history: BackupHistory, snapshot: string, resource: string): Promise<string[]> {
  const manifest = (await storedManifests(history)).get(snapshot) as Manifest;
  const ids: string[] = [];
  for (const file of manifest.files.filter((f) => f.format === 'raw' && f.table === resource)) {
    const chunks: Buffer[] = [];
    for await (const chunk of await history.storage.get(`${snapshot}/${file.path}`)) chunks.push(chunk as Buffer);
    for (const line of gunzipSync(Buffer.concat(chunks)).toString('utf8').split('\n').slice(0, -1)) {
      ids.push(/^\{"id":(\d+)/.exec(line)?.[1] ?? 'no id');
    }
  }
  return ids;
}

/**
 * For a test file: the same history written twice at once before its tests, into `<work>/snapshots` and into s3rver
 * (`s3://shopsnap-test/shopsnap`), handed to `found`; afterwards the shops and s3rver stop and `work` goes.
 */
export function beforeAllHistories(
  name: string,
  found: (histories: { work: string; local: BackupHistory; bucket: BackupHistory }) => void,
): void {
  let work: string | undefined;
  let close = async () => {};
  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), `shopsnap-${name}-`));
    const s3 = await startS3rver([BUCKET]);
    close = () => s3.stop();
    const out = join(work, 'snapshots');
    const [local, bucket] = await Promise.all([
      writeBackupHistory(new LocalDirStorage(out), out, work),
      writeBackupHistory(
        new S3Storage({ bucket: BUCKET, prefix: 'shopsnap', ...s3rverOptions(s3.endpoint) }),
        `s3://${BUCKET}/shopsnap`,
        work,
        s3rverCliFlags(s3.endpoint),
        S3RVER_CLI_ENV,
      ),
    ]);
    close = async () => {
      await Promise.all([local.close(), bucket.close()]);
      await s3.stop();
    };
    found({ work, local, bucket });
  }, 240_000);
  afterAll(async () => {
    await close();
    if (work !== undefined) await rm(work, { recursive: true, force: true });
  });
}
