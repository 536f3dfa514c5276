import type { Argv, CommandModule } from 'yargs';
import { FORMATS, newCliLogger, parseList, parseResources, runBackupFromCli } from '../backup-run.js';
import { parseShopAddress } from '../shop-address.js';
import { resolveToken } from '../token.js';

export interface BackupFlags {
  shop?: string;
  token?: string;
  tokenFile?: string;
  out: string;
  resources: string;
  formats: string;
  depth: number;
  s3Endpoint?: string;
  s3Region?: string;
  s3ForcePathStyle: boolean;
  json: boolean;
  verbose: boolean;
}

export function backupOptions<T>(yargs: Argv<T>) {
  return yargs
    .option('shop', { type: 'string', describe: 'Shop: name, name.myshopify.com or https://name.myshopify.com' })
    .option('token', { type: 'string', describe: 'Admin API access token (prefer SHOPSNAP_TOKEN or --token-file)' })
    .option('token-file', { type: 'string', describe: 'File holding the access token' })
    .option('out', { type: 'string', default: './snapshots', describe: 'Destination directory or s3://bucket/prefix' })
    .option('resources', { type: 'string', default: 'products,customers,orders', describe: 'Resources to back up' })
    .option('formats', { type: 'string', default: 'parquet,ndjson,raw', describe: 'Outputs: parquet, ndjson, raw' })
    .option('depth', { type: 'number', default: 20, describe: 'Most list requests in flight for the shop' })
    .option('s3-endpoint', { type: 'string', describe: 'Endpoint of an S3-compatible store (MinIO, R2, B2, GCS)' })
    .option('s3-region', { type: 'string', describe: 'S3 region (default: from the AWS configuration)' })
    .option('s3-force-path-style', { type: 'boolean', default: false, describe: 'Path-style bucket addressing' })
    .check((argv) => {
      if (!Number.isInteger(argv.depth) || argv.depth < 1 || argv.depth > 100) {
        throw new Error('--depth must be a whole number from 1 to 100');
      }
      return true;
    });
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
    if (flags.shop === undefined) throw usage('--shop (or SHOPSNAP_SHOP) is required');
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
        s3: { endpoint: flags.s3Endpoint, region: flags.s3Region, forcePathStyle: flags.s3ForcePathStyle },
        json: flags.json,
        verbose: flags.verbose,
      },
      logger,
    );
  },
};

import { UsageError } from '../usage-error.js';

function usage(message: string): UsageError {
  return new UsageError(message);
}
