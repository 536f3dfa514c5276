import { mkdtemp, rm } from 'node:fs/promises';
import type http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { EXIT } from '../../src/cli/exit-codes.js';
import { RetriesExhaustedError, ShopBodyEncodingError, ShopBodyTooDeepError } from '../../src/source/errors.js';
import { scanListPage } from '../../src/source/list-page.js';
import { DEFAULT_MAX_BODY_BYTES, ShopClient } from '../../src/source/shop-client.js';
import { runCli } from '../helpers/cli.js';
import { manifestsUnder } from '../helpers/snapshot-files.js';
import { type Handler, json, streamBody, tinyServer } from '../source/tiny-server.js';
import { getPageInChild } from './client-in-child.js';

const MiB = 1024 * 1024;
const HUGE = 300 * MiB;
const FAST = { baseDelayMs: 1, maxDelayMs: 5, maxAttempts: 3, maxThrottledAttempts: 3 };
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function clientFor(handler: Handler, maxBodyBytes?: number) {
  const server = await tinyServer(handler);
  const client = new ShopClient({ shopUrl: server.url, token: 'shpat_secret', depth: 2, retry: FAST, maxBodyBytes });
  closers.push(async () => {
    client.close();
    await server.close();
  });
  // A page_info cursor, so the test also sees the URL redacted in the error.
  return { server, client, url: client.apiUrl('orders.json', { limit: '250', page_info: 'c2VjcmV0LWN1cnNvcg' }) };
}

const readOrders = (body: Buffer, shown: string) => scanListPage(body, 'orders', shown);
const ORDERS_PAGE = { shape: { kind: 'list' as const, resource: 'orders' as const } };

const SPACES = Buffer.alloc(64 * 1024, ' ');
/** One gzip member of 1 MiB of spaces (about 1 KB); members concatenated are one valid gzip stream. */
const INFLATING_MEMBER = gzipSync(Buffer.alloc(MiB, ' '));

/** A shop whose orders page is `total` bytes of `chunk` repeated, generated while sending; counts answer 1. */
async function hugePage(headers: http.OutgoingHttpHeaders, chunk: Buffer, total: number) {
  let sent = { bytes: 0 };
  const server = await tinyServer((request, response) => {
    if (request.url?.includes('/count.json')) return json(response, 200, '{"count":1}');
    response.writeHead(200, { 'content-type': 'application/json', ...headers });
    sent = streamBody(response, chunk, total);
  });
  closers.push(server.close);
  const url = new URL('/admin/api/2022-01/orders.json?limit=250&page_info=c2VjcmV0LWN1cnNvcg', server.url);
  return { server, sent: () => sent.bytes, url };
}

describe('a 300 MB body', () => {
  it.each([
    {
      name: 'announced by Content-Length',
      headers: { 'content-length': String(HUGE) },
      gzip: false,
      stoppedBy: `(Content-Length: ${HUGE})`,
    },
    { name: 'chunked, without a length', headers: {}, gzip: false, stoppedBy: '(stopped after ' },
    {
      name: 'gzip of 300 KB that inflates to 300 MB',
      headers: { 'content-encoding': 'gzip' },
      gzip: true,
      stoppedBy: '(stopped after ',
    },
  ])('$name: stopped at the 64 MiB default while downloading, not retried, memory far below 300 MB', async (row) => {
    const chunk = row.gzip ? INFLATING_MEMBER : SPACES;
    const { server, sent, url } = await hugePage(row.headers, chunk, row.gzip ? 300 * chunk.length : HUGE);
    const outcome = await getPageInChild(url);
    expect(outcome.code).toBe('ERR_SHOP_BODY_TOO_LARGE');
    expect(outcome.message).toContain(
      `response body from ${server.url}/admin/api/2022-01/orders.json?limit=250&page_info=%E2%80%A6 exceeds the ` +
        `limit of ${DEFAULT_MAX_BODY_BYTES} bytes ${row.stoppedBy}`,
    );
    expect(outcome.message).toMatch(/\); no page of the API is that large$/);
    expect(server.requests).toHaveLength(1);
    // The download stopped: the server could hand over little more than the limit (socket buffers aside). A gzip
    // body is small on the wire, so the client's own count (in the message) says where it stopped.
    expect(sent()).toBeLessThan(DEFAULT_MAX_BODY_BYTES + 16 * MiB);
    const stoppedAfter = /\(stopped after (\d+) bytes\)/.exec(outcome.message ?? '')?.[1];
    if (row.stoppedBy.startsWith('(stopped after')) {
      expect(Number(stoppedAfter) - DEFAULT_MAX_BODY_BYTES).toBeGreaterThan(0);
      expect(Number(stoppedAfter) - DEFAULT_MAX_BODY_BYTES).toBeLessThan(MiB);
    }
    expect(outcome.rssGrowthBytes).toBeLessThan(160 * MiB);
  });

  it('with a 1 MiB limit, memory grows by a few MB at most: it follows the limit, not the body', async () => {
    const { sent, url } = await hugePage({}, SPACES, HUGE);
    const outcome = await getPageInChild(url, MiB);
    expect(outcome).toMatchObject({ code: 'ERR_SHOP_BODY_TOO_LARGE' });
    expect(outcome.message).toContain(`limit of ${MiB} bytes (stopped after `);
    expect(sent()).toBeLessThan(16 * MiB);
    expect(outcome.rssGrowthBytes).toBeLessThan(24 * MiB);
  });

  it('the CLI backing up such a shop exits 1 naming the limit, and leaves no manifest', async () => {
    const { sent, server } = await hugePage({}, SPACES, HUGE);
    const out = await mkdtemp(join(tmpdir(), 'shopsnap-huge-page-'));
    closers.push(() => rm(out, { recursive: true, force: true }));
    const result = await runCli(['backup', '--shop', server.url, '--resources', 'orders', '--out', out], {
      env: { SHOPSNAP_TOKEN: 'shpat_secret' },
    });
    expect(result.code).toBe(EXIT.failed);
    expect(result.stderr).toContain(`exceeds the limit of ${DEFAULT_MAX_BODY_BYTES} bytes`);
    expect(result.stderr).not.toContain('shpat_secret');
    expect(sent()).toBeLessThan(DEFAULT_MAX_BODY_BYTES + 16 * MiB);
    expect(await manifestsUnder(out)).toEqual([]);
  });

  it.each([
    { limit: 1000, chunked: false, outcome: 'read' },
    { limit: 1000, chunked: true, outcome: 'read' },
    { limit: 999, chunked: false, outcome: `refused (Content-Length: 1000)` },
    { limit: 999, chunked: true, outcome: 'refused (stopped after 1000 bytes)' },
  ])('a 1000-byte body, limit $limit, chunked $chunked: $outcome', async ({ limit, chunked, outcome }) => {
    const body = `{"orders":[{"id":1}]${' '.repeat(1000 - 21)}}`;
    const { client, url } = await clientFor((_request, response) => {
      response.writeHead(200, chunked ? {} : { 'content-length': '1000' });
      if (chunked) response.write(body.slice(0, 500));
      response.end(chunked ? body.slice(500) : body);
    }, limit);
    const result = await client.get(url, readOrders, ORDERS_PAGE).then(
      (response) => response.value.map((record) => record.id),
      (error: Error) => `refused ${error.message.split(' bytes ')[1]?.split(';')[0]}`,
    );
    expect(result).toEqual(outcome === 'read' ? ['1'] : outcome);
  });
});

/** A list page whose note holds `bytes` in the middle of otherwise valid UTF-8 JSON. */
function pageWith(bytes: number[]): Buffer {
  return Buffer.concat([Buffer.from('{"orders":[{"id":1,"note":"a'), Buffer.from(bytes), Buffer.from('z"}]}')]);
}

describe('a body that is not valid UTF-8', () => {
  it.each([
    ['a lone continuation byte', [0x80]],
    ['a byte UTF-8 never uses', [0xff]],
    ['an overlong "/"', [0xc0, 0xaf]],
    ['a raw lone surrogate (U+D800 encoded as CESU-8)', [0xed, 0xa0, 0x80]],
    ['a sequence cut short', [0xe2, 0x82]],
    ['a code point above U+10FFFF', [0xf4, 0x90, 0x80, 0x80]],
  ])('%s: never decoded with U+FFFD; retried, then a clear failure', async (_name, bytes) => {
    const { client, server, url } = await clientFor((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(pageWith(bytes));
    });
    const error = await client.get(url, readOrders, ORDERS_PAGE).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RetriesExhaustedError);
    const cause = (error as Error).cause;
    expect(cause).toBeInstanceOf(ShopBodyEncodingError);
    expect(cause).toMatchObject({ code: 'ERR_SHOP_BODY_UTF8', retryable: true });
    expect((error as Error).message).toMatch(/is not valid UTF-8 \(\d+ bytes\): it was damaged on the way/);
    expect(server.requests).toHaveLength(FAST.maxAttempts);
  });

  it('a body damaged once is fetched again, and the good copy is read exactly', async () => {
    const good = [0xe2, 0x82, 0xac, 0xef, 0xbf, 0xbd, 0xf0, 0x9f, 0x9a, 0x80]; // €, a literal U+FFFD, 🚀
    const { client, server, url } = await clientFor((_request, response, hit) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(pageWith(hit === 1 ? [0xe2, 0x82] : good));
    });
    const response = await client.get(url, readOrders, ORDERS_PAGE);
    expect(server.requests).toHaveLength(2);
    expect(response.retries).toBe(1);
    expect(response.value[0]?.record.note).toBe('a€\uFFFD🚀z');
  });
});

describe('deeply nested JSON', () => {
  it.each([
    ['100,000 [ in a record', `{"orders":[{"id":1,"x":${'['.repeat(100_000)}${']'.repeat(100_000)}}]}`],
    ['100,000 [ never closed', `{"orders":[{"id":1,"x":${'['.repeat(100_000)}`],
  ])('%s: a clear error naming the limit, no stack overflow, not retried', async (_name, body) => {
    const { client, server, url } = await clientFor((_request, response) => json(response, 200, body));
    const error = await client.get(url, readOrders, ORDERS_PAGE).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ShopBodyTooDeepError);
    expect(error).toMatchObject({ code: 'ERR_SHOP_BODY_TOO_DEEP', retryable: false, limitDepth: 512 });
    expect((error as Error).message).toMatch(/nests JSON deeper than 512 levels/);
    expect(server.requests).toHaveLength(1);
  });
});
