import { afterEach, describe, expect, it, vi } from 'vitest';
import { latencyFromFlags, type SimLatencyFlags, simCommand } from '../../src/cli/commands/sim.js';
import { API_PREFIX } from '../../src/shopify/resources.js';
import { LATENCY_PRESETS, type LatencyOptions } from '../../src/simulator/index.js';
import { failureLine, startCli } from '../helpers/cli.js';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('shopsnap sim', () => {
  it('prints the URL and token, serves the shop, and stops on SIGTERM', async () => {
    const out: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      out.push(String(chunk));
      return true;
    });
    vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const before = process.listeners('SIGTERM');
    const flags = {
      orders: 30,
      customers: 5,
      products: 4,
      rate: 'plus',
      port: 0,
      seed: 3,
      'big-id-share': 0,
      latency: 'none',
      token: 'shpat_sim_test',
      json: false,
      verbose: false,
    };
    const serving = (simCommand.module.handler as (flags: unknown) => Promise<void>)(flags);
    await vi.waitFor(() => expect(out.join('')).toContain('token: shpat_sim_test'));
    const url = /shop:\s+(\S+)/.exec(out.join(''))?.[1] as string;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const response = await fetch(`${url}${API_PREFIX}/orders/count.json?status=any`, {
      headers: { 'X-Shopify-Access-Token': 'shpat_sim_test' },
    });
    expect(await response.json()).toEqual({ count: 30 });
    expect(response.headers.get('x-shopify-shop-api-call-limit')).toBe('1/400');
    const stop = process.listeners('SIGTERM').find((listener) => !before.includes(listener));
    expect(stop).toBeDefined();
    stop?.('SIGTERM');
    await serving;
    await expect(fetch(`${url}${API_PREFIX}/orders/count.json`)).rejects.toThrow();
  });
});

describe('shopsnap sim: latency flags', () => {
  const realistic = LATENCY_PRESETS.realistic;
  it.each<[string, SimLatencyFlags, LatencyOptions]>([
    ['a preset alone', { latency: 'realistic' }, 'realistic'],
    ['none by default', { latency: 'none' }, 'none'],
    [
      'pages in exactly 150 ms + 7 ms per record, the rest at once',
      { latency: 'none', listMs: 150, perRecordMs: 7 },
      {
        ...LATENCY_PRESETS.none,
        listMs: 150,
        perRecordMs: { products: 7, customers: 7, orders: 7 },
        perVariantMs: 0,
      },
    ],
    ['realistic with counts at once', { latency: 'realistic', countMs: 0 }, { ...realistic, countMs: 0 }],
    [
      'realistic with its other medians set',
      { latency: 'realistic', singleMs: 100, writeMs: 900 },
      { ...realistic, singleMs: 100, writeMs: 900 },
    ],
  ])('%s', (_name, flags, latency) => {
    expect(latencyFromFlags(flags)).toEqual(latency);
  });
});

describe('shopsnap sim: the built CLI', () => {
  it('serves any bucket as SIZE@LEAK and pages in a fixed time, counts at once', async () => {
    const run = startCli([
      'sim',
      ...['--port', '0', '--orders', '20', '--customers', '2', '--products', '2', '--token', 'shpat_sim_flags'],
      ...['--rate', '80@4', '--list-ms', '300', '--per-record-ms', '10'],
    ]);
    try {
      const [, url] = await run.waitForStderr(/ at (http:\/\/127\.0\.0\.1:\d+) \(rate: bucket 80 @ 4\/s/);
      const get = async (path: string) => {
        const started = performance.now();
        const response = await fetch(`${url}${API_PREFIX}${path}`, {
          headers: { 'X-Shopify-Access-Token': 'shpat_sim_flags' },
        });
        await response.text();
        return { response, ms: performance.now() - started };
      };
      const page = await get('/orders.json?status=any&limit=20');
      expect(page.response.status).toBe(200);
      expect(page.response.headers.get('x-shopify-shop-api-call-limit')).toBe('1/80');
      expect(page.ms).toBeGreaterThanOrEqual(300 + 20 * 10);
      // A count at once: it overtakes a page sent before it.
      const slow = get('/orders.json?status=any&limit=20');
      const count = await get('/orders/count.json?status=any');
      expect(count.response.status).toBe(200);
      expect((await slow).ms).toBeGreaterThan(count.ms);
    } finally {
      run.kill('SIGTERM');
      await run.done;
    }
  });

  it('limits new orders per minute with --orders-per-minute, as a development store does', async () => {
    const run = startCli([
      'sim',
      ...['--port', '0', '--orders', '0', '--customers', '0', '--products', '0', '--token', 'shpat_sim_dev'],
      ...['--orders-per-minute', '1'],
    ]);
    try {
      const [, url] = await run.waitForStderr(/ at (http:\/\/127\.0\.0\.1:\d+) \(.*; 1 new orders a minute\)/);
      const create = () =>
        fetch(`${url}${API_PREFIX}/orders.json`, {
          method: 'POST',
          headers: { 'X-Shopify-Access-Token': 'shpat_sim_dev', 'Content-Type': 'application/json' },
          body: JSON.stringify({ order: { line_items: [{ title: 'x', price: '1.00' }] } }),
        });
      expect((await create()).status).toBe(201);
      const refused = await create();
      expect(refused.status).toBe(429);
      expect(await refused.json()).toEqual({
        errors:
          'Exceeded order API rate limit, please try again in a minute. Upgrade to a paid account to remove this limit.',
      });
    } finally {
      run.kill('SIGTERM');
      await run.done;
    }
  });

  it.each([
    [
      'a rate that is no bucket',
      ['--rate', '80x4'],
      /--rate must be standard, advanced, plus, unlimited or SIZE@LEAK .*, not "80x4"/,
    ],
    ['a leak of 0', ['--rate', '40@0'], /not "40@0"/],
    ['a negative median', ['--write-ms', '-3'], /latency writeMs must be a finite number ≥ 0, got -3/],
    [
      'a fractional order limit',
      ['--orders-per-minute', '1.5'],
      /orderCreateThrottle\.orders must be an integer ≥ 0, got 1\.5/,
    ],
  ])('refuses %s with a usage error', async (_name, flags, message) => {
    const result = await startCli(['sim', '--port', '0', ...flags]).done;
    expect(result.code).toBe(2);
    expect(failureLine(result.stderr)).toMatch(message);
  });
});
