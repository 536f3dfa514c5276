import { API_PREFIX } from '../../shopify/resources.js';
import {
  type BucketShape,
  LATENCY_PRESETS,
  type LatencyModel,
  type LatencyOptions,
  type LatencyPreset,
  parseRate,
  startShop,
} from '../../simulator/index.js';
import { defineCommand } from '../command.js';
import { flag } from '../flags.js';

const RATE_HELP = 'standard, advanced, plus, unlimited or SIZE@LEAK (e.g. 80@4: bucket 80, leaking 4/s)';

export interface SimLatencyFlags {
  latency: LatencyPreset;
  countMs?: number | undefined;
  singleMs?: number | undefined;
  writeMs?: number | undefined;
  listMs?: number | undefined;
  perRecordMs?: number | undefined;
}

/**
 * The latency preset with the fields the flags set. `--per-record-ms` sets every resource's cost per record and drops
 * the preset's cost per variant, so a page takes exactly `list + records × per-record`.
 */
export function latencyFromFlags(flags: SimLatencyFlags): LatencyOptions {
  const overrides: Partial<LatencyModel> = {};
  if (flags.countMs !== undefined) overrides.countMs = flags.countMs;
  if (flags.singleMs !== undefined) overrides.singleMs = flags.singleMs;
  if (flags.writeMs !== undefined) overrides.writeMs = flags.writeMs;
  if (flags.listMs !== undefined) overrides.listMs = flags.listMs;
  const perRecord = flags.perRecordMs;
  if (perRecord !== undefined) {
    overrides.perRecordMs = { products: perRecord, customers: perRecord, orders: perRecord };
    overrides.perVariantMs = 0;
  }
  return Object.keys(overrides).length === 0 ? flags.latency : { ...LATENCY_PRESETS[flags.latency], ...overrides };
}

function describeRate(rate: BucketShape): string {
  return Number.isFinite(rate.leakPerSecond) ? `bucket ${rate.bucket} @ ${rate.leakPerSecond}/s` : 'unlimited';
}

/**
 * `shopsnap sim`: serve the simulated shop until SIGINT/SIGTERM, printing its URL and token on stdout (one JSON line
 * with --json). It reads no SHOPSNAP_* variable but --json/--verbose's: SHOPSNAP_TOKEN holds a real shop's token,
 * which sim would print.
 */
export const simCommand = defineCommand({
  name: 'sim',
  describe: 'Serve a simulated Shopify shop (Admin REST 2022-01) on 127.0.0.1 until stopped',
  flags: {
    orders: flag.number({ describe: 'Orders to generate (up to 1,000,000)', default: 50_000 }),
    customers: flag.number({ describe: 'Customers to generate (up to 1,000,000)', default: 10_000 }),
    products: flag.number({ describe: 'Products to generate (up to 1,000,000)', default: 1_000 }),
    rate: flag.string({
      describe: `Leaky bucket: ${RATE_HELP}; standard is 40@2, advanced 80@4, plus 400@20`,
      default: 'standard',
      check: (text) => (parseRate(text) ? undefined : `must be ${RATE_HELP}, not ${JSON.stringify(text)}`),
    }),
    port: flag.number({ describe: 'Port on 127.0.0.1 (0: any free port)', default: 8080 }),
    seed: flag.number({ describe: 'Same seed and sizes give the same data', default: 1 }),
    bigIdShare: flag.number({ describe: 'Share of ids above 2^53 (0..1)', default: 0.01 }),
    latency: flag.string({
      describe: 'Response times: none (at once) or realistic (per kind, with a lognormal tail and rare stalls)',
      choices: ['none', 'realistic'] satisfies LatencyPreset[],
      default: 'none',
    }),
    countMs: flag.number({ describe: 'Median ms of a count (sets that field of --latency)' }),
    singleMs: flag.number({ describe: 'Median ms of one record (sets that field of --latency)' }),
    writeMs: flag.number({ describe: 'Median ms of a write (sets that field of --latency)' }),
    listMs: flag.number({ describe: 'Median ms of a list page before its records (sets that field of --latency)' }),
    perRecordMs: flag.number({ describe: 'Ms a list page takes per record, any resource (sets it in --latency)' }),
    token: flag.string({ describe: 'Accepted access token (default: a random shpat_… token)' }),
    ordersPerMinute: flag.number({
      describe: "At most N orders created per minute, the rest answered with Shopify's 429 (development stores: 5)",
    }),
  },
  examples: [
    ['Serve a 50,000-order Plus shop on port 8080', '$0 sim --orders 50000 --rate plus --port 8080'],
    [
      'A bucket leaking faster than its tier, realistic pages, counts at once',
      '$0 sim --rate 40@20 --latency realistic --count-ms 0',
    ],
    ['Pages in exactly 150 ms + 7 ms per record, everything else at once', '$0 sim --list-ms 150 --per-record-ms 7'],
    [
      'A development store to restore into: empty, 5 new orders a minute',
      '$0 sim --orders 0 --customers 0 --products 0 --orders-per-minute 5',
    ],
  ],
  run: async (flags) => {
    const rate = parseRate(flags.rate) as BucketShape;
    const latency = latencyFromFlags(flags);
    const shop = await startShop({
      orders: flags.orders,
      customers: flags.customers,
      products: flags.products,
      rate,
      port: flags.port,
      seed: flags.seed,
      bigIdShare: flags.bigIdShare,
      latency,
      ...(flags.token !== undefined && { token: flags.token }),
      ...(flags.ordersPerMinute !== undefined && { orderCreateThrottle: { orders: flags.ordersPerMinute } }),
    });
    // Listening for the signals before saying so: a caller that stops the shop as soon as it reads the URL would
    // otherwise kill it before the listeners exist.
    const stopped = new Promise<void>((resolve) => {
      const stop = () => {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
        resolve();
      };
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    });
    const api = `${shop.url}${API_PREFIX}`;
    process.stdout.write(
      flags.json
        ? `${JSON.stringify({ shop: shop.url, token: shop.token, api })}\n`
        : `shop:  ${shop.url}\ntoken: ${shop.token}\napi:   ${api}\n`,
    );
    const times = typeof latency === 'string' ? latency : `${flags.latency} with the times given`;
    process.stderr.write(
      `Serving ${flags.products} products, ${flags.customers} customers and ${flags.orders} orders at ${shop.url} ` +
        `(rate: ${describeRate(rate)}; latency: ${times}${
          flags.ordersPerMinute === undefined ? '' : `; ${flags.ordersPerMinute} new orders a minute`
        }). Stop with Ctrl-C.\n`,
    );
    await stopped;
    await shop.close();
  },
});
