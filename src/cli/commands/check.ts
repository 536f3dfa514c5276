import { buildCheckReport } from '../../runner/check-report.js';
import { RESOURCES } from '../../shopify/resources.js';
import { checkShop } from '../../source/index.js';
import { interruptible, OUTPUT_FLAGS } from '../backup-run.js';
import { formatCheckReport } from '../check-table.js';
import { defineCommand } from '../command.js';
import { EXIT } from '../exit-codes.js';
import { SHOP_FLAGS, shopAndToken } from '../shop-flags.js';

export const checkCommand = defineCommand({
  name: 'check',
  describe: 'Test the connection before the first backup: token, scopes, counts, rate tier, API version, estimate',
  flags: {
    ...SHOP_FLAGS,
    resources: { ...OUTPUT_FLAGS.resources, describe: 'Resources the backup will take', default: [...RESOURCES] },
    depth: { ...OUTPUT_FLAGS.depth, describe: 'The backup’s --depth, for the estimate', default: 20 },
  },
  examples: [
    ['Check, then back up with the same settings; the token in SHOPSNAP_TOKEN', '$0 check --shop my-shop'],
    ['The findings as JSON', '$0 check --shop my-shop --token-file ./shop.token --json'],
  ],
  run: async (args) => {
    const { shop, token } = await shopAndToken(args);
    const check = await interruptible((signal) =>
      checkShop({ shopUrl: shop.origin, token, resources: args.resources, signal }),
    );
    const report = buildCheckReport(check, { shop: shop.key, resources: args.resources, depth: args.depth });
    process.stdout.write(
      args.json ? `${JSON.stringify(report, null, 2)}\n` : formatCheckReport(report, args.shop as string),
    );
    // A missing scope is refused credentials, as the backup would meet them (exit 5).
    process.exitCode = report.ok ? EXIT.complete : EXIT.auth;
  },
});
