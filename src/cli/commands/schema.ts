import { schemaDdl } from '../../sink/ddl.js';
import { isS3Url, parseS3Url } from '../../storage/index.js';
import { describeSchema } from '../../transform/index.js';
import { defineCommand } from '../command.js';
import { flag } from '../flags.js';
import { UsageError } from '../usage-error.js';

export const schemaCommand = defineCommand({
  name: 'schema',
  describe: 'Print every output table and column with its type, or DDL that creates tables for its Parquet files',
  flags: {
    format: flag.string({
      describe:
        'text (people), json (tools; also --json); duckdb, bigquery or athena: CREATE TABLE with the Parquet files’ columns',
      choices: ['text', 'json', 'duckdb', 'bigquery', 'athena'],
    }),
    dataset: flag.string({ describe: 'The BigQuery dataset or Athena database of the tables', default: 'shopsnap' }),
    location: flag.string({ describe: '--format athena: the destination (s3://bucket/prefix) the tables read' }),
  },
  examples: [
    ['Every table, for tools', '$0 schema --json'],
    ['Tables to load Parquet files into, in DuckDB', '$0 schema --format duckdb'],
    ['The same in BigQuery, in the dataset shop_backups', '$0 schema --format bigquery --dataset shop_backups'],
    [
      'Athena tables over every snapshot in a bucket, partitioned by shop and snapshot',
      '$0 schema --format athena --location s3://my-company-backups/shopsnap',
    ],
  ],
  run: (args) => {
    const format = args.format ?? (args.json ? 'json' : 'text');
    if (format === 'text' || format === 'json') {
      process.stdout.write(describeSchema(format));
      return;
    }
    if (format !== 'athena' && args.location !== undefined) {
      throw new UsageError(`--location is where Athena's tables read; --format ${format} takes none`);
    }
    if (format === 'athena' && (args.location === undefined || !isS3Url(args.location))) {
      throw new UsageError('--format athena needs --location s3://bucket/prefix, the destination the tables read');
    }
    if (args.location !== undefined) parseS3Url(args.location);
    process.stdout.write(
      schemaDdl(format, { dataset: args.dataset, ...(args.location === undefined ? {} : { location: args.location }) }),
    );
  },
});
