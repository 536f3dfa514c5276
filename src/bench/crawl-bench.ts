import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import Shopify from 'shopify-api-node';
import { RESOURCES, type ResourceName } from '../shopify/resources.js';
import { uniformLatency } from '../simulator/index.js';
import { openShopSession } from '../source/index.js';
import { minimumCrawl, scheduleFinishMs } from './crawl-bound.js';

/**
 * The benchmark shop of issue 3: ~50,000 records, bucket 40 leaking 20/s, 300 ms + 0.5 ms per record. Prerendered:
 * building pages on demand costs the shop about 7 s of CPU per crawl, which on a small machine competes with the
 * crawler and stretches answers past the configured latency the bound assumes.
 */
const LATENCY = { baseMs: 300, perRecordMs: 0.5 };
const SHOP = {
  seed: 7,
  products: 10_000,
  customers: 15_000,
  orders: 25_000,
  bigIdShare: 0.01,
  latency: uniformLatency(LATENCY.baseMs, LATENCY.perRecordMs),
  prerender: true,
} as const;
const RATE = { bucket: 40, leakPerSecond: 20 };
/** The peer runs on a Plus-sized bucket; it is sequential, so the bucket never limits it. */
const PEER_RATE = { bucket: 400, leakPerSecond: 20 };
const DEPTH = 20;
const PAGE_LIMIT = 250;

export interface CrawlBenchResult {
  records: number;
  wallMs: number;
  recordsPerSecond: number;
  /** Finish time of the best schedule of the minimum requests (see crawl-bound.ts). */
  boundMs: number;
  boundOverWall: number;
  requests: number;
  minimumRequests: number;
  throttled: number;
  /** Mean round trip the crawler saw, against the nominal mean of the minimum requests (the shop's own CPU adds). */
  meanRoundTripMs: number;
  nominalRoundTripMs: number;
  /** The same bound with every latency stretched to the observed mean round trip. */
  observedBoundMs: number;
  cpuMs: number;
  maxRssMb: number;
  peer: { records: number; wallMs: number; recordsPerSecond: number; requests: number };
  speedupOverPeer: number;
}

interface SimChild {
  url: string;
  token: string;
  counts: Record<ResourceName, number>;
  /** Closes the shop and returns its request statistics. */
  stop(): Promise<{ requests: number; throttled: number }>;
}

async function startSimChild(options: object): Promise<SimChild> {
  const script = fileURLToPath(new URL('./crawl-sim.js', import.meta.url));
  const child: ChildProcess = spawn(process.execPath, [script, JSON.stringify(options)], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream })[Symbol.asyncIterator]();
  const first = await lines.next();
  if (first.done) throw new Error('simulated shop exited before printing its address');
  const started = JSON.parse(first.value) as Omit<SimChild, 'stop'>;
  return {
    ...started,
    async stop() {
      child.stdin?.end();
      const last = await lines.next();
      const stats = last.done
        ? undefined
        : (JSON.parse(last.value) as { stats: { requests: number; throttled: number } });
      return stats?.stats ?? { requests: Number.NaN, throttled: Number.NaN };
    },
  };
}

async function crawlShopsnap(shop: SimChild) {
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const session = openShopSession({ shopUrl: shop.url, token: shop.token, depth: DEPTH });
  const totals = await Promise.all(
    RESOURCES.map(async (resource) => {
      const { records, report } = session.crawl(resource);
      const ids = new Set<string>();
      for await (const record of records) ids.add(record.id);
      await report;
      return ids.size;
    }),
  );
  const wallMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  const { requests, meanRoundTripMs } = session.stats();
  session.close();
  return {
    records: totals.reduce((a, b) => a + b, 0),
    wallMs,
    requests,
    meanRoundTripMs: meanRoundTripMs ?? Number.NaN,
    cpuMs: (cpu.user + cpu.system) / 1000,
  };
}

/** What a Node user writes with shopify-api-node: follow `Link` one page after another, one resource at a time. */
async function crawlPeer(shop: SimChild) {
  const { hostname, port, protocol } = new URL(shop.url);
  const shopify = new Shopify({ shopName: 'bench-peer', accessToken: shop.token, apiVersion: '2022-01' });
  // shopify-api-node always builds https://<shopName>.myshopify.com; its requests take this object as the base.
  (shopify as unknown as { baseUrl: object }).baseUrl = { hostname, port: Number(port), protocol };
  const started = performance.now();
  let records = 0;
  let requests = 0;
  const lists = {
    products: (params: object) => shopify.product.list(params),
    customers: (params: object) => shopify.customer.list(params),
    orders: (params: object) => shopify.order.list(params),
  };
  const filters = { products: { status: 'active,archived,draft' }, customers: {}, orders: { status: 'any' } };
  for (const resource of RESOURCES) {
    let params: object | undefined = { limit: PAGE_LIMIT, ...filters[resource] };
    while (params) {
      const page: { length: number; nextPageParameters?: object } = await lists[resource](params);
      requests++;
      records += page.length;
      params = page.nextPageParameters;
    }
  }
  const wallMs = performance.now() - started;
  return { records, wallMs, recordsPerSecond: (records * 1000) / wallMs, requests };
}

function line(text: string): void {
  process.stdout.write(`${text}\n`);
}

export async function runCrawlBench(): Promise<CrawlBenchResult> {
  line(
    `crawl bench: ${SHOP.products + SHOP.customers + SHOP.orders} records, bucket ${RATE.bucket} @ ${RATE.leakPerSecond}/s, ` +
      `${LATENCY.baseMs} ms + ${LATENCY.perRecordMs} ms/record, depth ${DEPTH}`,
  );
  const shop = await startSimChild({ ...SHOP, rate: RATE });
  const ours = await crawlShopsnap(shop);
  const served = await shop.stop();
  const counts = RESOURCES.map((resource) => shop.counts[resource]);
  const minimum = minimumCrawl(counts, PAGE_LIMIT, LATENCY);
  const rate = { bucket: RATE.bucket, leakPerSecond: RATE.leakPerSecond, depth: DEPTH };
  const boundMs = scheduleFinishMs({ ...minimum, ...rate });
  const latencies = [...minimum.latenciesMs, ...minimum.closing.map((closing) => closing.latencyMs)];
  const maxRssMb = process.resourceUsage().maxRSS / 1024;
  const nominalRoundTripMs = latencies.reduce((a, b) => a + b, 0) / latencies.length;
  const observed = (ms: number) => (ms * ours.meanRoundTripMs) / nominalRoundTripMs;

  line(`peer: shopify-api-node, sequential Link chains, bucket ${PEER_RATE.bucket} @ ${PEER_RATE.leakPerSecond}/s`);
  const peerShop = await startSimChild({ ...SHOP, rate: PEER_RATE });
  const peer = await crawlPeer(peerShop);
  await peerShop.stop();

  const result: CrawlBenchResult = {
    records: ours.records,
    wallMs: ours.wallMs,
    recordsPerSecond: (ours.records * 1000) / ours.wallMs,
    boundMs,
    boundOverWall: boundMs / ours.wallMs,
    requests: ours.requests,
    minimumRequests: latencies.length,
    throttled: served.throttled,
    meanRoundTripMs: ours.meanRoundTripMs,
    nominalRoundTripMs,
    observedBoundMs: scheduleFinishMs({
      latenciesMs: minimum.latenciesMs.map(observed),
      closing: minimum.closing.map(({ latencyMs, after }) => ({ latencyMs: observed(latencyMs), after })),
      ...rate,
    }),
    cpuMs: ours.cpuMs,
    maxRssMb,
    peer,
    speedupOverPeer: peer.wallMs / ours.wallMs,
  };
  const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
  line(`shopsnap: ${result.records} records in ${s(result.wallMs)} = ${result.recordsPerSecond.toFixed(0)} records/s`);
  line(
    `  bound (best schedule of the minimum requests, each count after the crawl behind its resource's pages): ${s(boundMs)}; bound/wall = ${result.boundOverWall.toFixed(3)} (target ≥ 0.85)`,
  );
  const unordered = scheduleFinishMs({ latenciesMs: latencies, ...rate });
  line(`  (with the counts after free to go any time: ${s(unordered)} = ${(unordered / result.wallMs).toFixed(3)})`);
  line(
    `  requests: ${result.requests} made (server saw ${served.requests}, ${served.throttled} throttled) vs ${result.minimumRequests} minimum`,
  );
  line(
    `  mean round trip ${result.meanRoundTripMs.toFixed(0)} ms observed vs ${result.nominalRoundTripMs.toFixed(0)} ms ` +
      'configured (the difference is time spent in the simulated shop and in event loops); ' +
      `the bound at the observed round trip is ${s(result.observedBoundMs)} = ` +
      `${(result.observedBoundMs / result.wallMs).toFixed(3)} of the wall time`,
  );
  line(`  crawler CPU ${s(result.cpuMs)}, peak RSS ${maxRssMb.toFixed(0)} MB (the shop runs in its own process)`);
  line(
    `peer: ${peer.records} records in ${s(peer.wallMs)} = ${peer.recordsPerSecond.toFixed(0)} records/s (${peer.requests} requests)`,
  );
  line(`  shopsnap is ${result.speedupOverPeer.toFixed(1)}× the peer (target ≥ 5×)`);
  return result;
}
