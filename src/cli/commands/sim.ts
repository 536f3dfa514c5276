import type { CommandModule } from 'yargs';
import { API_PREFIX } from '../../shopify/resources.js';
import { type RatePreset, startShop, uniformLatency } from '../../simulator/index.js';

interface SimFlags {
  orders: number;
  customers: number;
  products: number;
  rate: RatePreset;
  port: number;
  seed: number;
  'big-id-share': number;
  'latency-ms': number;
  'per-record-ms': number;
  token?: string;
}

/** `shopsnap sim`: serve the simulated shop until SIGINT/SIGTERM, printing its URL and token on stdout. */
export const simCommand: CommandModule<object, SimFlags> = {
  command: 'sim',
  describe: 'Serve a simulated Shopify shop (Admin REST 2022-01) on 127.0.0.1 until stopped',
  builder: (yargs) =>
    yargs
      .option('orders', { type: 'number', default: 50_000, describe: 'Orders to generate (up to 1,000,000)' })
      .option('customers', { type: 'number', default: 10_000 })
      .option('products', { type: 'number', default: 1_000 })
      .option('rate', {
        choices: ['standard', 'plus', 'unlimited'] as const,
        default: 'standard' as RatePreset,
        describe: 'Leaky bucket: standard 40 @ 2/s, plus 400 @ 20/s, or unlimited',
      })
      .option('port', { type: 'number', default: 8080 })
      .option('seed', { type: 'number', default: 1, describe: 'Same seed and sizes give the same data' })
      .option('big-id-share', { type: 'number', default: 0.01, describe: 'Share of ids above 2^53 (0..1)' })
      .option('latency-ms', { type: 'number', default: 0, describe: 'Added to every response' })
      .option('per-record-ms', { type: 'number', default: 0, describe: 'Added per record in a response' })
      .option('token', { type: 'string', describe: 'Accepted access token (default: a random shpat_… token)' })
      .example('$0 sim --orders 50000 --rate plus --port 8080', 'Serve a 50,000-order Plus shop on port 8080') as never,
  handler: async (flags) => {
    const shop = await startShop({
      orders: flags.orders,
      customers: flags.customers,
      products: flags.products,
      rate: flags.rate,
      port: flags.port,
      seed: flags.seed,
      bigIdShare: flags['big-id-share'],
      latency: uniformLatency(flags['latency-ms'], flags['per-record-ms']),
      ...(flags.token !== undefined && { token: flags.token }),
    });
    process.stdout.write(`shop:  ${shop.url}\ntoken: ${shop.token}\napi:   ${shop.url}${API_PREFIX}\n`);
    process.stderr.write(
      `Serving ${flags.products} products, ${flags.customers} customers and ${flags.orders} orders (rate: ${flags.rate}). Stop with Ctrl-C.\n`,
    );
    await new Promise<void>((resolve) => {
      const stop = () => {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
        resolve();
      };
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    });
    await shop.close();
  },
};
