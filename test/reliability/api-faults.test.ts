import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../../src/cli/exit-codes.js';
import { RESOURCES } from '../../src/shopify/resources.js';
import {
  type FaultOptions,
  type InjectedFaults,
  type RunningShop,
  startShop,
  uniformLatency,
} from '../../src/simulator/index.js';
import { type CliResult, failureLine, lastLine, runCli } from '../helpers/cli.js';
import { manifestsUnder, rawIds } from '../helpers/snapshot-files.js';

const TOKEN = 'shpat_api_faults_5d0c2e';

let work: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'shopsnap-api-faults-'));
});

afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

interface FaultRun {
  shop: RunningShop;
  out: string;
  result: CliResult;
}

/**
 * One whole `shopsnap backup` (the built binary, a process of its own) of a small shop with `faults`, the raw archive
 * only (the faults strike the crawl; the other formats are tested elsewhere), checkpoints every 0.1 s so parts are
 * committed while the faults strike.
 */
async function backupWith(name: string, faults: FaultOptions, rate: 'unlimited' | 'plus' = 'unlimited') {
  const shop = await startShop({
    seed: 21,
    products: 300,
    customers: 600,
    orders: 900,
    bigIdShare: 0.1,
    token: TOKEN,
    rate,
    latency: uniformLatency(5),
    faults,
  });
  const out = join(work, name);
  try {
    const args = ['backup', '--shop', shop.url, '--out', out, '--formats', 'raw', '--checkpoint-interval', '0.1'];
    const result = await runCli([...args, '--json'], { env: { SHOPSNAP_TOKEN: TOKEN } });
    return { shop, out, result } satisfies FaultRun;
  } finally {
    await shop.close();
  }
}

/** The message of an unreadable Link entry (rel=next or rel=previous unquoted): the entry, then the header's start. */
const MALFORMED_LINK =
  /^shopsnap: malformed Link header \(cannot read entry "<http:\/\/127\.0\.0\.1:\d+\/admin\/api\/2022-01\/\w+\.json\?limit=\d+&page_info=[\w-]*"\): <http:\/\/127\.0\.0\.1:\d+\/admin\/api\/2022-01\/\w+\.json\?limit=\d+&page_info=[\w-]+>; rel=/;

describe.concurrent('a whole backup under API faults completes exactly', { timeout: 60_000 }, () => {
  it.each([
    ['a 429 storm (12 bucket 429s in a row, Retry-After 2.0)', { throttleStorm: { after: 3, requests: 12 } }, 'plus'],
    ['5xx bursts (500, 502, 503, 504, two in a row)', { serverErrorRate: 0.2, serverErrorBurst: 2 }, 'unlimited'],
    ['connections reset mid-body', { resetRate: 0.3 }, 'unlimited'],
    ['truncated bodies (honest Content-Length, or chunked and closed)', { truncateRate: 0.3 }, 'unlimited'],
    ['bodies stalling halfway', { slowRate: 0.4, slowMs: 500 }, 'unlimited'],
    ['429s from a limit other than the bucket (the bucket shows room)', { throttleStormRate: 0.15 }, 'unlimited'],
    [
      'every transient fault at once on a shop that ignores filters (one Link chain each)',
      { ignoreFilters: true, serverErrorRate: 0.15, resetRate: 0.15, truncateRate: 0.15, slowRate: 0.15, slowMs: 300 },
      'unlimited',
    ],
  ] as const)('%s', async (name, faults: FaultOptions, rate) => {
    const { shop, result } = await backupWith(name.replace(/\W+/g, '-'), faults, rate);
    expect(result.code, result.stderr).toBe(EXIT.complete);
    // The faults did strike: a run that met none would prove nothing.
    const knobs = Object.keys(faults).filter((knob) => !['ignoreFilters', 'serverErrorBurst', 'slowMs'].includes(knob));
    for (const knob of knobs) expect(shop.stats().faults[knob as keyof InjectedFaults], knob).toBeGreaterThan(0);
    const { manifest, location } = JSON.parse(result.stdout);
    expect(manifest.status).toBe('complete');
    expect(JSON.parse(await readFile(join(location, 'manifest.json'), 'utf8')).status).toBe('complete');
    for (const resource of RESOURCES) {
      const ids = await rawIds(location, resource);
      expect(new Set(ids).size, `${resource}: no id twice`).toBe(ids.length);
      expect([...ids].sort(), resource).toEqual([...shop.records(resource)].map((record) => String(record.id)).sort());
      expect(manifest.resources[resource]).toMatchObject({ check: 'ok', exported: ids.length });
    }
  });
});

describe.concurrent('a whole backup under API faults it cannot survive fails clearly, with no manifest', {
  timeout: 60_000,
}, () => {
  it.each([
    [
      'the shop frozen mid-run (402)',
      { failFromRequest: { after: 8, status: 402 } },
      EXIT.shopUnavailable,
      /^shopsnap: the shop is frozen \(402 Payment Required\): http:\/\/127\.0\.0\.1:\d+\/admin\/api\/2022-01\/\w+(\/count)?\.json\?\S* answered \{"errors":"Unavailable Shop"\}$/,
    ],
    [
      'the shop locked mid-run (423)',
      { failFromRequest: { after: 8, status: 423 } },
      EXIT.shopUnavailable,
      /^shopsnap: the shop is locked \(423 Locked\): http:\/\/127\.0\.0\.1:\d+\/admin\/api\/2022-01\/\S+ answered \{"errors":"Locked"\}$/,
    ],
    ['a malformed Link header (rel=next unquoted)', { malformedLinkAfter: 2 }, EXIT.failed, MALFORMED_LINK],
    [
      'a malformed Link header on a Link chain, where a loose reader would end the list early',
      { ignoreFilters: true, malformedLinkAfter: 4 },
      EXIT.failed,
      MALFORMED_LINK,
    ],
    [
      'a cursor loop (the next link repeats the page_info just used)',
      { ignoreFilters: true, cursorLoopAfter: 1 },
      EXIT.failed,
      /^shopsnap: cursor loop on \/admin\/api\/2022-01\/\w+\.json: the same page_info was returned twice$/,
    ],
    [
      'a page_info the shop rejects (400 "Invalid value.", an expired cursor)',
      { ignoreFilters: true, pageInfoErrorRate: 0.5 },
      EXIT.failed,
      /^shopsnap: http:\/\/127\.0\.0\.1:\d+\/admin\/api\/2022-01\/\w+\.json\?limit=\d+&page_info=%E2%80%A6 answered 400: \{"errors":\{"page_info":"Invalid value\."\}\}$/,
    ],
  ] as const)('%s', async (name, faults: FaultOptions, code, message) => {
    const { shop, out, result } = await backupWith(name.replace(/\W+/g, '-'), faults);
    expect(result.code, result.stderr).toBe(code);
    const knob = Object.keys(faults).find((key) => key !== 'ignoreFilters') as keyof InjectedFaults;
    expect(shop.stats().faults[knob]).toBeGreaterThan(0);
    failureLine(result.stderr);
    expect(lastLine(result.stderr)).toMatch(message);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    // --json: the failure, and nothing else, on stdout
    expect(JSON.parse(result.stdout)).toEqual({
      status: 'failed',
      exit_code: code,
      error: lastLine(result.stderr).slice('shopsnap: '.length),
    });
    expect(await manifestsUnder(out)).toEqual([]);
  });
});
