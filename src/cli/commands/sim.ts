import { API_PREFIX } from '../../shopify/resources.js';
import { type RatePreset, startShop, uniformLatency } from '../../simulator/index.js';
import { defineCommand } from '../command.js';
import { flag } from '../flags.js';

/**
 * `shopsnap sim`: serve the simulated shop until SIGINT/SIGTERM, printing its URL and token on stdout. It reads no
 * SHOPSNAP_* variable but --json/--verbose's: SHOPSNAP_TOKEN holds a real shop's token, which sim would print.
 */
export const simCommand = defineCommand({
  name: 'sim',
  describe: 'Serve a simulated Shopify shop (Admin REST 2022-01) on 127.0.0.1 until stopped',
  flags: {
    orders: flag.number({ describe: 'Orders to generate (up to 1,000,000)', default: 50_000 }),
    customers: flag.number({ describe: 'Customers to generate (up to 1,000,000)', default: 10_000 }),
    products: flag.number({ describe: 'Products to generate (up to 1,000,000)', default: 1_000 }),
    rate: flag.string({
      describe: 'Leaky bucket: standard 40 @ 2/s, plus 400 @ 20/s, or unlimited',
      choices: ['standard', 'plus', 'unlimited'] satisfies RatePreset[],
      default: 'standard',
    }),
    port: flag.number({ describe: 'Port on 127.0.0.1 (0: any free port)', default: 8080 }),
    seed: flag.number({ describe: 'Same seed and sizes give the same data', default: 1 }),
    bigIdShare: flag.number({ describe: 'Share of ids above 2^53 (0..1)', default: 0.01 }),
    latencyMs: flag.number({ describe: 'Milliseconds added to every response', default: 0 }),
    perRecordMs: flag.number({ describe: 'Milliseconds added per record in a response', default: 0 }),
    token: flag.string({ describe: 'Accepted access token (default: a random shpat_… token)' }),
  },
  examples: [['Serve a 50,000-order Plus shop on port 8080', '$0 sim --orders 50000 --rate plus --port 8080']],
  run: async (flags) => {
    const shop = await startShop({
      orders: flags.orders,
      customers: flags.customers,
      products: flags.products,
      rate: flags.rate,
      port: flags.port,
      seed: flags.seed,
      bigIdShare: flags.bigIdShare,
      latency: uniformLatency(flags.latencyMs, flags.perRecordMs),
      ...(flags.token !== undefined && { token: flags.token }),
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
    process.stdout.write(`shop:  ${shop.url}\ntoken: ${shop.token}\napi:   ${shop.url}${API_PREFIX}\n`);
    process.stderr.write(
      `Serving ${flags.products} products, ${flags.customers} customers and ${flags.orders} orders (rate: ${flags.rate}). Stop with Ctrl-C.\n`,
    );
    await stopped;
    await shop.close();
  },
});
