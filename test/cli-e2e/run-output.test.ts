import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseShopAddress } from '../../src/cli/shop-address.js';
import { RESOURCES } from '../../src/shopify/resources.js';
import { startShop, uniformLatency } from '../../src/simulator/index.js';
import { logLines, runCli, startCli } from '../helpers/cli.js';

const TOKEN = 'shpat_output_e2e_51d2';
const env = { SHOPSNAP_TOKEN: TOKEN };

let work: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'shopsnap-output-'));
});

afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

describe('what a run logs off a terminal, without --verbose (built CLI, JSON lines on stderr)', () => {
  it('start, each resource’s count and finish, and a progress line per crawling resource every --stats interval', async () => {
    const shop = await startShop({
      seed: 21,
      products: 30,
      customers: 40,
      orders: 2_500,
      token: TOKEN,
      latency: uniformLatency(30, 1),
    });
    try {
      const out = join(work, 'info');
      const result = await runCli(['backup', '--shop', shop.url, '--out', out, '--stats', '0.2', '--depth', '1'], {
        env,
      });
      expect(result.code, result.stderr).toBe(0);
      const lines = logLines(result.stderr);
      const key = parseShopAddress(shop.url).key;
      expect(lines[0]).toMatchObject({
        level: 30,
        shop: key,
        resources: [...RESOURCES],
        formats: ['parquet', 'ndjson', 'raw'],
        destination: out,
        resumed: false,
        attempt: 1,
      });
      expect(lines[0]?.msg).toMatch(
        new RegExp(
          `^backing up ${key} \\(products, customers, orders\\) as parquet, ndjson, raw to ${out}: new snapshot \\d{8}T\\d{9}Z$`,
        ),
      );
      const messages = lines.map((line) => line.msg);
      expect(messages).toContain('orders: 2,500 records to fetch');
      expect(messages).toContain('customers: 40 records to fetch');
      const finished = lines.find((line) => line.msg.startsWith('orders: finished'));
      expect(finished).toMatchObject({ resource: 'orders', exported: 2_500, count_before: 2_500, check: 'ok' });
      // Second copies of late pages, among the requests (README, "Backing up a real shop": the log).
      expect(finished?.hedges).toBeTypeOf('number');
      expect(finished?.msg).toMatch(
        /^orders: finished, 2,500 records \(count 2,500 before, 2,500 after: ok\), \d+ pages, \d+ requests, 0 retries in \d+ s$/,
      );
      for (const resource of RESOURCES)
        expect(messages.filter((m) => m.startsWith(`${resource}: finished`))).toHaveLength(1);
      const stats = lines.filter((line) => line.msg.startsWith('orders: ') && 'rate' in line);
      expect(stats.length).toBeGreaterThan(1);
      for (const line of stats) {
        expect(line.msg).toMatch(
          /^orders: [\d,]+ of 2,500 records \(\d+%\), \d+ pages?(, [\d,]+\/s)?(, ETA .+)?(;.*)?$/,
        );
      }
      // Records grow from one progress line to the next, and the lines stop once the resource is finished.
      const records = stats.map((line) => line.records as number);
      expect(records).toEqual([...records].sort((a, b) => a - b));
      expect(lines.indexOf(stats.at(-1) as (typeof lines)[number])).toBeLessThan(
        lines.indexOf(finished as (typeof lines)[number]),
      );
      expect(messages.filter((m) => m === 'request answered' || m === 'committed file')).toEqual([]);

      const verbose = await runCli(
        ['backup', '--shop', shop.url, '--out', join(work, 'verbose'), '--verbose', '--resources', 'products'],
        { env },
      );
      expect(verbose.code).toBe(0);
      const detail = logLines(verbose.stderr);
      expect(detail.filter((line) => line.msg === 'request answered').length).toBeGreaterThanOrEqual(3);
      expect(detail.find((line) => line.msg === 'request answered')).toMatchObject({
        level: 20,
        resource: 'products',
        slot_wait_ms: expect.any(Number),
        send_wait_ms: expect.any(Number),
      });
      expect(detail.filter((line) => line.msg === 'committed file').length).toBeGreaterThan(0);
    } finally {
      await shop.close();
    }
  });

  it('a shop that accepts connections and never answers: the progress line says requests are unanswered, and for how long', async () => {
    const sockets = new Set<Socket>();
    const silent = createServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
    try {
      const run = startCli(
        ['backup', '--shop', url, '--out', join(work, 'silent'), '--stats', '1', '--resources', 'orders'],
        {
          env,
        },
      );
      await run.waitForStderr(/requests? unanswered(, the oldest)? for [1-9]/);
      run.kill('SIGTERM');
      const result = await run.done;
      expect(result.code).toBe(130);
      const line = logLines(result.stderr).find((l) => /unanswered(, the oldest)? for [1-9]/.test(l.msg));
      expect(line).toMatchObject({ resource: 'orders', records: 0, pages: 0 });
      expect(line?.unanswered).toBeGreaterThanOrEqual(1);
      expect(line?.oldest_unanswered_s).toBeGreaterThanOrEqual(1);
      expect(line?.msg).toMatch(
        /^orders: 0 records \(count not known yet\), 0 pages(, 0\/s)?; \d+ requests? unanswered/,
      );
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('tells retries and 429s as they happen, a storm of them in a few lines', async () => {
    const shop = await startShop({
      seed: 22,
      products: 10,
      customers: 10,
      orders: 3_000,
      token: TOKEN,
      // Each storm 429 costs seconds (the pacer holds the others back while the bucket shows full): a few suffice.
      faults: { throttleStorm: { after: 4, requests: 3 }, serverErrorRate: 0.3 },
    });
    try {
      const startedAt = Date.now();
      const result = await runCli(
        ['backup', '--shop', shop.url, '--out', join(work, 'storm'), '--resources', 'orders'],
        {
          env,
        },
      );
      const seconds = (Date.now() - startedAt) / 1000;
      expect(result.code, result.stderr).toBe(0);
      const lines = logLines(result.stderr);
      const throttled = lines.filter((line) => line.msg.startsWith('orders: the shop throttled a request (429)'));
      const retried = lines.filter((line) => / retrying in [\d.]+ s, attempt \d+/.test(line.msg));
      const finished = lines.find((line) => line.msg.startsWith('orders: finished'));
      const retries = Number(/([\d,]+) retries/.exec(finished?.msg ?? '')?.[1]?.replace(',', ''));
      const faults = shop.stats().faults;
      expect(faults.throttleStorm).toBe(3);
      // Every fault answered a request the crawl retried, but for a late page's hedged copy (on a loaded machine): the
      // copy answered second is abandoned, fault or not, and only its twin counts.
      expect(retries).toBeLessThanOrEqual(3 + (faults.serverErrorRate ?? 0));
      expect(retries).toBeGreaterThanOrEqual(3 + (faults.serverErrorRate ?? 0) - 2);
      expect(throttled.length).toBeGreaterThanOrEqual(1);
      expect(retried.length).toBeGreaterThanOrEqual(1);
      // Fewer lines than retries of each kind: those within 10 s of a line are only counted.
      expect(throttled.length).toBeLessThan(3);
      expect(retried.length).toBeLessThan(faults.serverErrorRate ?? 0);
      // At most one line per kind every 10 s (and the first at once), however many retries there were.
      for (const kind of [throttled, retried]) expect(kind.length).toBeLessThanOrEqual(Math.ceil(seconds / 10) + 1);
      const told = [...throttled, ...retried].reduce((sum, line) => sum + 1 + ((line.more as number) ?? 0), 0);
      expect(told).toBeLessThanOrEqual(retries);
      expect(throttled[0]).toMatchObject({ level: 30, resource: 'orders', delay_ms: 2_000 });
    } finally {
      await shop.close();
    }
  });
});
