import { spawn } from 'node:child_process';
import { jsonFromChild } from '../helpers/child-json.js';

const SCRIPT = `
const { ShopClient } = await import(process.env.SHOP_CLIENT_MODULE);
const { scanListPage } = await import(process.env.LIST_PAGE_MODULE);
const url = new URL(process.env.PAGE_URL);
const maxBodyBytes = process.env.MAX_BODY_BYTES ? Number(process.env.MAX_BODY_BYTES) : undefined;
const client = new ShopClient({ shopUrl: url.origin, token: 'shpat_secret', depth: 1, retry: { maxAttempts: 1 }, maxBodyBytes });
const before = process.resourceUsage().maxRSS;
let outcome;
try {
  const response = await client.get(url, (text, shown) => scanListPage(text, 'orders', shown), { shape: { kind: 'list', resource: 'orders' } });
  outcome = { records: response.value.length };
} catch (error) {
  outcome = { code: error.code, message: error.message };
}
client.close();
console.log(JSON.stringify({ ...outcome, rssGrowthBytes: (process.resourceUsage().maxRSS - before) * 1024 }));
`;

export interface ChildOutcome {
  records?: number;
  code?: string;
  message?: string;
  /** Growth of the child's peak resident memory during the request. */
  rssGrowthBytes: number;
}

/**
 * GETs one list page with the built ShopClient in a fresh Node process, so its peak memory is the request's alone
 * (and no test interceptor sits between it and the socket).
 */
export function getPageInChild(url: URL, maxBodyBytes?: number): Promise<ChildOutcome> {
  const child = spawn(process.execPath, ['--input-type=module', '-e', SCRIPT], {
    env: {
      PATH: process.env.PATH ?? '',
      SHOP_CLIENT_MODULE: new URL('../../dist/source/shop-client.js', import.meta.url).href,
      LIST_PAGE_MODULE: new URL('../../dist/source/list-page.js', import.meta.url).href,
      PAGE_URL: url.href,
      ...(maxBodyBytes === undefined ? {} : { MAX_BODY_BYTES: String(maxBodyBytes) }),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return jsonFromChild<ChildOutcome>(child, 'the client process');
}
