import type { Argv, CommandModule } from 'yargs';
import { FORMATS, newCliLogger, parseList, parseResources, runBackupFromCli } from '../backup-run.js';
import { type S3Flags, s3Options, s3SettingsFrom } from '../s3-flags.js';
import { parseShopAddress } from '../shop-address.js';
import { resolveToken } from '../token.js';
import { UsageError } from '../usage-error.js';

export interface BackupFlags extends S3Flags {
  shop?: string;
  token?: string;
  tokenFile?: string;
  out: string;
  resources: string;
  formats: string;
  depth: number;
  json: boolean;
  verbose: boolean;
  fresh: boolean;
  checkpointInterval: number;
  parquetEngine: string;
  leaseTtl?: number;
}

/** `js` is accepted as a name so that asking for it gets the reason instead of "invalid choice". */
const PARQUET_ENGINES = ['duckdb', 'js'];
const JS_PARQUET_REFUSAL =
  '--parquet-engine js is refused: the JavaScript Parquet writers we measured corrupt ids above 2^53 (parquetjs-lite) ' +
  'or put money one cent off (@dsnp/parquetjs); use duckdb (the default)';

export function backupOptions<T>(yargs: Argv<T>) {
  return (
    s3Options(yargs)
      .option('shop', { type: 'string', describe: 'Shop: name, name.myshopify.com or https://name.myshopify.com' })
      .option('token', { type: 'string', describe: 'Admin API access token (prefer SHOPSNAP_TOKEN or --token-file)' })
      .option('token-file', { type: 'string', describe: 'File holding the access token' })
      .option('out', {
        type: 'string',
        default: './snapshots',
        describe: 'Destination directory or s3://bucket/prefix',
      })
      .option('resources', { type: 'string', default: 'products,customers,orders', describe: 'Resources to back up' })
      .option('formats', { type: 'string', default: 'parquet,ndjson,raw', describe: 'Outputs: parquet, ndjson, raw' })
      .option('depth', { type: 'number', default: 20, describe: 'Most list requests in flight for the shop' })
      .option('fresh', {
        type: 'boolean',
        default: false,
        describe: 'Start a new snapshot instead of resuming an unfinished one (which is removed)',
      })
      .option('checkpoint-interval', {
        type: 'number',
        default: 120,
        describe:
          'Seconds between checkpoints: parts committed and progress saved, so a crashed run resumes from there',
      })
      .option('parquet-engine', {
        type: 'string',
        choices: PARQUET_ENGINES,
        default: 'duckdb',
        describe: 'Parquet writer: duckdb (exact int64 ids and DECIMAL money; see the README for why not js)',
      })
      // For tests that kill a run and resume it at once: a dead run's lease otherwise blocks for two minutes.
      .option('lease-ttl', { type: 'number', hidden: true })
      .check((argv) => {
        if (argv['parquet-engine'] === 'js') throw new UsageError(JS_PARQUET_REFUSAL);
        if (!(argv['checkpoint-interval'] > 0)) throw new UsageError('--checkpoint-interval must be a positive number');
        if (!Number.isInteger(argv.depth) || argv.depth < 1 || argv.depth > 100) {
          throw new UsageError('--depth must be a whole number from 1 to 100');
        }
        return true;
      })
  );
}

export const backupCommand: CommandModule<object, BackupFlags> = {
  command: 'backup',
  describe: 'Back up a shop into a snapshot (directory or S3)',
  builder: (yargs) =>
    backupOptions(yargs)
      .example('SHOPSNAP_TOKEN=shpat_… $0 backup --shop my-shop --out ./snapshots', 'Back up every resource locally')
      .example(
        '$0 backup --shop my-shop --token-file /run/secrets/token --out s3://backups/shops --formats parquet',
        'Parquet only, to S3',
      ) as unknown as Argv<BackupFlags>,
  handler: async (flags) => {
    if (flags.shop === undefined) throw new UsageError('--shop (or SHOPSNAP_SHOP) is required');
    const shop = parseShopAddress(flags.shop);
    const token = await resolveToken(flags);
    const logger = newCliLogger(flags, [token]);
    process.exitCode = await runBackupFromCli(
      {
        shop,
        token,
        out: flags.out,
        resources: parseResources(flags.resources),
        formats: parseList(flags.formats, FORMATS, 'format'),
        depth: flags.depth,
        s3: s3SettingsFrom(flags),
        json: flags.json,
        verbose: flags.verbose,
        fresh: flags.fresh,
        checkpointIntervalMs: flags.checkpointInterval * 1000,
        ...(flags.leaseTtl === undefined ? {} : { leaseTtlMs: flags.leaseTtl * 1000 }),
      },
      logger,
    );
  },
};
