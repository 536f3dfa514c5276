import { OUTPUT_FORMATS } from '../../runner/output-format.js';
import { RESOURCES } from '../../shopify/resources.js';
import { newCliLogger, OUTPUT_FLAGS, runBackupFromCli, STATS_FLAG } from '../backup-run.js';
import { defineCommand } from '../command.js';
import { flag } from '../flags.js';
import { S3_WRITE_FLAGS, s3SettingsFrom } from '../s3-flags.js';
import { SHOP_FLAGS, shopAndToken } from '../shop-flags.js';

export const backupCommand = defineCommand({
  name: 'backup',
  describe: 'Back up a shop into a snapshot (directory or S3)',
  flags: {
    ...SHOP_FLAGS,
    out: { ...OUTPUT_FLAGS.out, default: './snapshots' },
    resources: { ...OUTPUT_FLAGS.resources, default: [...RESOURCES] },
    formats: { ...OUTPUT_FLAGS.formats, default: [...OUTPUT_FORMATS] },
    depth: { ...OUTPUT_FLAGS.depth, default: 20 },
    fresh: flag.boolean({
      describe: 'Start a new snapshot instead of resuming an unfinished one (which is removed)',
      env: true,
      default: false,
    }),
    acceptShrink: flag.boolean({
      describe:
        'The shop really lost records: a suspicious shrink is accepted, the snapshot is complete and the new baseline',
      env: true,
      default: false,
    }),
    checkpointInterval: flag.number({
      describe: 'Seconds between checkpoints: parts committed and progress saved, so a crashed run resumes from there',
      env: true,
      default: 120,
      check: (seconds) => (seconds > 0 ? undefined : 'must be a positive number'),
    }),
    stats: STATS_FLAG,
    ...S3_WRITE_FLAGS,
  },
  examples: [
    ['Every resource into ./snapshots, the token in SHOPSNAP_TOKEN', '$0 backup --shop my-shop'],
    ['Parquet only, to S3', '$0 backup --shop my-shop --out s3://backups/shops --formats parquet'],
  ],
  run: async (args) => {
    const { shop, token } = await shopAndToken(args);
    const logger = newCliLogger(args, [token]);
    const { exitCode } = await runBackupFromCli(
      {
        shop,
        token,
        out: args.out,
        resources: args.resources,
        formats: args.formats,
        depth: args.depth,
        s3: s3SettingsFrom(args),
        json: args.json,
        verbose: args.verbose,
        fresh: args.fresh,
        acceptShrink: args.acceptShrink,
        checkpointIntervalMs: args.checkpointInterval * 1000,
        statsSeconds: args.stats,
      },
      logger,
    );
    process.exitCode = exitCode;
  },
});
