import { isAbsolute, relative } from 'node:path';
import { OUTPUT_FORMATS } from '../../runner/output-format.js';
import { RESOURCES } from '../../shopify/resources.js';
import { startShop, uniformLatency } from '../../simulator/index.js';
import { isS3Url } from '../../storage/index.js';
import { newCliLogger, runBackupFromCli } from '../backup-run.js';
import { defineCommand } from '../command.js';
import { EXIT } from '../exit-codes.js';
import { flag } from '../flags.js';
import { parseShopAddress } from '../shop-address.js';

const DEFAULT_SIZES = { orders: 5000, customers: 1500, products: 400 };

/** The demo reads no SHOPSNAP_* variable but --json/--verbose's: a shell set up for real backups must not redirect it. */
export const demoCommand = defineCommand({
  name: 'demo',
  describe: 'Back up the built-in simulated shop into ./snapshots (no account, no network)',
  flags: {
    out: flag.string({ describe: 'Destination: a directory or s3://bucket/prefix', default: './snapshots' }),
    orders: flag.number({ describe: 'Orders in the simulated shop', default: DEFAULT_SIZES.orders }),
    customers: flag.number({ describe: 'Customers in the simulated shop', default: DEFAULT_SIZES.customers }),
    products: flag.number({ describe: 'Products in the simulated shop', default: DEFAULT_SIZES.products }),
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
      const { exitCode, location } = await runBackupFromCli(
        {
          // The simulated shop listens on a random port; its key stays the same, so demos are snapshots of one shop.
          shop: { origin: parseShopAddress(shop.url).origin, key: demoShopKey(flags) },
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
      if (exitCode === EXIT.complete && !flags.json) process.stderr.write(nextSteps(location));
      process.exitCode = exitCode;
    } finally {
      await shop.close();
    }
  },
});

/**
 * The folder the demo's snapshots go to: `shopsnap-demo` (a name no real or loopback shop's key can take), with the
 * sizes when they are not the default, because another size is another shop (its orders would otherwise look like a
 * suspicious shrink of the default one's).
 */
export function demoShopKey(sizes: { orders: number; customers: number; products: number }): string {
  const { orders, customers, products } = sizes;
  const isDefault =
    orders === DEFAULT_SIZES.orders && customers === DEFAULT_SIZES.customers && products === DEFAULT_SIZES.products;
  return isDefault ? 'shopsnap-demo' : `shopsnap-demo-o${orders}-c${customers}-p${products}`;
}

const DEMO_QUERY =
  'SELECT financial_status, count(*) AS orders, sum(total_price) AS revenue FROM orders GROUP BY ALL ORDER BY ALL';

/**
 * What to do next with the snapshot just written: verify it, and a query of the shop's newest complete snapshot (this
 * one) through `shopsnap query`, as a command line that runs as printed from this folder.
 */
function nextSteps(location: string): string {
  const here = relative(process.cwd(), location);
  const shown = isS3Url(location) || here.startsWith('..') || isAbsolute(here) ? location : here;
  const shop = shown.slice(0, shown.lastIndexOf('/'));
  const lines = [
    '',
    `Check it again at any time:  npx -- shopsnap verify ${shellWord(location)}`,
    'Ask it questions in SQL (DuckDB runs inside shopsnap; a view per table, and the views snapshots and files):',
    `  npx -- shopsnap query ${shellWord(shop)} "${DEMO_QUERY}"`,
    `Every view and its columns: npx -- shopsnap query ${shellWord(shop)} --schema`,
    'Plain DuckDB, Athena, BigQuery: README.md, "Querying with DuckDB" and "Loading into a warehouse".',
  ];
  return `${lines.join('\n')}\n\n`;
}

/** A word a POSIX shell reads as it is: quoted when it holds anything but plain path characters. */
function shellWord(text: string): string {
  return /^[\w./:=@%+,-]+$/.test(text) ? text : `'${text.replaceAll("'", "'\\''")}'`;
}
