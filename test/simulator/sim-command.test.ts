import { afterEach, describe, expect, it, vi } from 'vitest';
import { simCommand } from '../../src/cli/commands/sim.js';
import { API_PREFIX } from '../../src/shopify/resources.js';

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
      bigIdShare: 0,
      latencyMs: 0,
      perRecordMs: 0,
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
