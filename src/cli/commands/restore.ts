import { createInterface } from 'node:readline/promises';
import { planText, type RestoreReport, resultText } from '../../restore/report.js';
import { runRestore } from '../../restore/restore.js';
import { parseOnly } from '../../restore/scope.js';
import { stringifyJson } from '../../shopify/json.js';
import { RESOURCES } from '../../shopify/resources.js';
import { interruptible, newCliLogger } from '../backup-run.js';
import { defineCommand } from '../command.js';
import { EXIT } from '../exit-codes.js';
import { flag } from '../flags.js';
import { S3_READ_FLAGS, s3SettingsFrom } from '../s3-flags.js';
import { SHOP_FLAGS, shopAndToken } from '../shop-flags.js';
import { UsageError } from '../usage-error.js';

const CUSTOMERS = 'Customers (never contacted unless asked):';

export const restoreCommand = defineCommand({
  name: 'restore',
  describe: 'Write a snapshot into a shop: migrate it into another shop, or recover the shop it was taken of',
  positionals: {
    snapshot:
      'A snapshot (its folder or manifest.json) or a shop folder (its newest complete snapshot); a path or s3://',
  },
  flags: {
    ...SHOP_FLAGS,
    mode: flag.string({
      describe:
        'migrate (match by marker, then handle, email or phone, order name) or recover (by id); default: recover when the shop is the snapshot’s own, else migrate',
      choices: ['migrate', 'recover'],
    }),
    resources: flag.list({
      describe: 'Resources to restore (with what their orders need)',
      choices: RESOURCES,
      default: [...RESOURCES],
    }),
    only: flag.list({
      describe: 'Only these records (and what they need): <resource>:<id>[,<id>…], e.g. orders:450789469,450789470',
    }),
    plan: flag.boolean({ describe: 'Show the plan and write nothing', default: false }),
    yes: flag.boolean({
      describe: 'Apply without asking; without it a terminal asks, and no terminal is an error',
      default: false,
    }),
    updateExisting: flag.boolean({
      describe: 'migrate: bring records matched in the shop to the snapshot’s values (else they are left as they are)',
      default: false,
    }),
    prune: flag.boolean({ describe: 'recover: also delete records the snapshot does not have', default: false }),
    sendInvites: flag.boolean({
      describe: 'Send each created customer an account invite email',
      default: false,
      group: CUSTOMERS,
    }),
    activationUrls: flag.string({
      describe: 'Write one account activation URL per created customer to this CSV file',
      group: CUSTOMERS,
    }),
    state: flag.string({ describe: 'Folder for the journal, id map and reports of restores', default: './restores' }),
    ...S3_READ_FLAGS,
  },
  examples: [
    [
      'See what restoring the newest snapshot into another shop would do',
      '$0 restore ./snapshots/my-shop.myshopify.com --shop my-new-shop --plan',
    ],
    [
      'Migrate it, without asking',
      '$0 restore ./snapshots/my-shop.myshopify.com/20261122T050623123Z --shop my-new-shop --yes',
    ],
    [
      'Recover two deleted orders in the shop itself',
      '$0 restore ./snapshots/my-shop.myshopify.com --shop my-shop --only orders:450789469,450789470',
    ],
  ],
  run: async (args) => {
    if (!args.plan && !args.yes && !(process.stdin.isTTY && process.stderr.isTTY)) {
      throw new UsageError(
        'restore writes into the shop: pass --yes to apply without a terminal to confirm on, or --plan to see the plan',
      );
    }
    const only = args.only === undefined ? {} : parseOnly(args.only);
    const { shop, token } = await shopAndToken(args);
    const logger = newCliLogger(args, [token]);
    const outcome = await interruptible((signal) =>
      runRestore({
        snapshot: args.snapshot,
        s3: s3SettingsFrom(args),
        target: shop,
        token,
        mode: args.mode,
        resources: args.resources,
        only,
        planOnly: args.plan,
        confirm: async (report) => {
          if (!args.json) process.stdout.write(`${planText(report, shop.origin)}\n`);
          return args.yes || (await ask(`Write this into ${shop.origin}? [y/N] `));
        },
        updateExisting: args.updateExisting,
        prune: args.prune,
        sendInvites: args.sendInvites,
        activationUrls: args.activationUrls,
        stateRoot: args.state,
        logger,
        signal,
      }),
    );
    const { report, reportPath } = outcome;
    if (report.status === 'declined') {
      process.stderr.write('shopsnap: not applied; nothing was written\n');
      process.exitCode = EXIT.failed;
      return;
    }
    if (args.json) process.stdout.write(`${stringifyJson(report)}\n`);
    else if (report.status === 'planned') process.stdout.write(`${planText(report, shop.origin)}\n`);
    else process.stdout.write(`${resultText(report)}\n${reportPath}\n`);
    process.exitCode = outcome.incomplete ? EXIT.restoreIncomplete : EXIT.complete;
  },
});

async function ask(question: string): Promise<boolean> {
  const terminal = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await terminal.question(question)).trim());
  } finally {
    terminal.close();
  }
}

export type { RestoreReport };
