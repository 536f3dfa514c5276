import type { CommandModule } from 'yargs';
import { RESOURCES } from '../../shopify/resources.js';
import { startShop, uniformLatency } from '../../simulator/index.js';
import { FORMATS, newCliLogger, runBackupFromCli } from '../backup-run.js';
import { EXIT } from '../exit-codes.js';
import { parseShopAddress } from '../shop-address.js';

interface DemoFlags {
  out: string;
  orders: number;
  customers: number;
  products: number;
  json: boolean;
  verbose: boolean;
}

export const demoCommand: CommandModule<object, DemoFlags> = {
  command: 'demo',
  describe: 'Back up the built-in simulated shop into ./snapshots (no account, no network)',
  builder: (yargs) =>
    yargs
      .option('out', { type: 'string', default: './snapshots', describe: 'Destination directory or s3://…' })
      .option('orders', { type: 'number', default: 5000 })
      .option('customers', { type: 'number', default: 1500 })
      .option('products', { type: 'number', default: 400 })
      .example('$0 demo', 'Simulate a Plus shop and back it up into ./snapshots') as never,
  handler: async (flags) => {
    const shop = await startShop({
      seed: 2022,
      orders: flags.orders,
      customers: flags.customers,
      products: flags.products,
      rate: 'plus',
      latency: uniformLatency(40, 0.05),
      bigIdShare: 0.02,
    });
    try {
      const logger = newCliLogger(flags, [shop.token]);
      process.stderr.write(
        `Simulated shop at ${shop.url} (${flags.products} products, ${flags.customers} customers, ${flags.orders} orders, Plus rate limit)\n`,
      );
      const exitCode = await runBackupFromCli(
        {
          shop: parseShopAddress(shop.url),
          token: shop.token,
          out: flags.out,
          resources: RESOURCES,
          formats: FORMATS,
          depth: 20,
          s3: {},
          json: flags.json,
          verbose: flags.verbose,
        },
        logger,
      );
      if (exitCode === EXIT.complete && !flags.json) {
        process.stderr.write(
          [
            '',
            'Look at it with DuckDB (every snapshot of every shop at once):',
            `  SELECT financial_status, count(*), sum(total_price) FROM read_parquet('${flags.out}/*/*/parquet/orders/*.parquet') GROUP BY 1;`,
            'Check it again at any time:  npx -- shopsnap verify <the location printed on stdout>',
            '',
          ].join('\n'),
        );
      }
      process.exitCode = exitCode;
    } finally {
      await shop.close();
    }
  },
};
