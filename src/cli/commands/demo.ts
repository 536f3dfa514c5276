import { OUTPUT_FORMATS } from '../../runner/output-format.js';
import { RESOURCES } from '../../shopify/resources.js';
import { startShop, uniformLatency } from '../../simulator/index.js';
import { newCliLogger, runBackupFromCli } from '../backup-run.js';
import { defineCommand } from '../command.js';
import { EXIT } from '../exit-codes.js';
import { flag } from '../flags.js';
import { parseShopAddress } from '../shop-address.js';

/** The demo reads no SHOPSNAP_* variable but --json/--verbose's: a shell set up for real backups must not redirect it. */
export const demoCommand = defineCommand({
  name: 'demo',
  describe: 'Back up the built-in simulated shop into ./snapshots (no account, no network)',
  flags: {
    out: flag.string({ describe: 'Destination: a directory or s3://bucket/prefix', default: './snapshots' }),
    orders: flag.number({ describe: 'Orders in the simulated shop', default: 5000 }),
    customers: flag.number({ describe: 'Customers in the simulated shop', default: 1500 }),
    products: flag.number({ describe: 'Products in the simulated shop', default: 400 }),
  },
  examples: [['Simulate a Plus shop and back it up into ./snapshots', '$0 demo']],
  run: async (flags) => {
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
          formats: OUTPUT_FORMATS,
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
});
