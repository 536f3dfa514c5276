import { createReadStream } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import { extname, join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { writeError } from '../../local-file.js';
import { singleStatement, viewColumns, withQueryViews } from '../../query/query-views.js';
import { copyResult, RESULT_FORMATS, type ResultFormat, resultTable } from '../../query/result-output.js';
import type { Selection } from '../../query/selection.js';
import { tempPathFor } from '../../sink/gzip-part-file.js';
import { openCatalog } from '../../snapshot/catalog.js';
import { isSnapshotId } from '../../snapshot/snapshot-id.js';
import { defineCommand } from '../command.js';
import { flag, wholeNumber } from '../flags.js';
import { S3_READ_FLAGS, s3SettingsFrom } from '../s3-flags.js';
import { UsageError } from '../usage-error.js';

const DEFAULT_LOCATION = './snapshots';

export const queryCommand = defineCommand({
  name: 'query',
  describe: 'Run SQL (DuckDB, in-process) over the snapshots: a view per table, and the views snapshots and files',
  optionalPositionals: {
    location: `Destination (directory or s3://bucket/prefix), a shop folder or one snapshot (default ${DEFAULT_LOCATION})`,
    sql: 'One SQL statement, e.g. "SELECT count(*) FROM orders"',
  },
  flags: {
    snapshot: flag.string({
      describe: 'The table views read this snapshot (its id) instead of each shop’s newest complete one',
      check: (id) => (isSnapshotId(id) ? undefined : 'must be a snapshot id, e.g. 20261122T050623123Z'),
    }),
    allSnapshots: flag.boolean({
      describe: 'The table views read every complete snapshot, with a column snapshot_id',
      default: false,
    }),
    schema: flag.boolean({ describe: 'List the views and their columns instead of running SQL', default: false }),
    format: flag.string({
      describe: 'table (people; the default), or csv, json, ndjson, parquet (every row, exact types)',
      choices: RESULT_FORMATS,
    }),
    out: flag.string({ describe: 'Write the result to this file (its format from --format, or its extension)' }),
    maxRows: flag.number({
      describe: 'Rows a table shows (0: all); the total is counted whatever it is',
      default: 40,
      check: wholeNumber(0, 1_000_000_000),
    }),
    ...S3_READ_FLAGS,
  },
  examples: [
    [
      'Orders by financial status in each shop’s newest complete snapshot',
      '$0 query ./snapshots "SELECT financial_status, count(*) AS orders, sum(total_price) AS revenue FROM orders GROUP BY ALL ORDER BY ALL"',
    ],
    [
      'How the customers of every complete snapshot moved, as CSV',
      '$0 query ./snapshots --all-snapshots "SELECT snapshot_id, count(*) FROM customers GROUP BY 1 ORDER BY 1" --format csv',
    ],
    ['The nights of a shop in S3', '$0 query s3://backups/shopsnap/my-shop.myshopify.com "FROM snapshots"'],
    ['Every view and column', '$0 query ./snapshots --schema'],
  ],
  run: async (args) => {
    const [location, sql] = locationAndSql(args.location, args.sql, args.schema);
    if (args.snapshot !== undefined && args.allSnapshots) {
      throw new UsageError('--snapshot and --all-snapshots exclude each other');
    }
    const selection: Selection =
      args.snapshot !== undefined
        ? { kind: 'snapshot', id: args.snapshot }
        : args.allSnapshots
          ? { kind: 'all' }
          : { kind: 'latest' };
    const format = resultFormat(args.format, args.json, args.out);
    const catalog = await openCatalog(location, s3SettingsFrom(args));
    await withQueryViews({ catalog, selection, sql }, async (connection, views) => {
      for (const note of views.selected.notes) process.stderr.write(`shopsnap: warning: ${note}\n`);
      if (sql === undefined) {
        const listed = await viewColumns(connection);
        if (args.json) process.stdout.write(`${JSON.stringify({ views: listed }, null, 2)}\n`);
        else
          process.stdout.write(
            schemaText(
              listed,
              views.selected.snapshots.map((s) => s.key),
            ),
          );
        return;
      }
      const statement = await singleStatement(connection, sql);
      if (format === 'table') {
        const width = process.stdout.isTTY ? process.stdout.columns : undefined;
        process.stdout.write(await resultTable(connection, statement, { maxRows: args.maxRows, width }));
      } else if (args.out !== undefined) {
        await writeResultFile(connection, statement, format, args.out);
        process.stdout.write(`${args.out}\n`);
      } else {
        const path = join(views.scratch, `result.${format}`);
        await copyResult(connection, statement, format, path);
        await toStdout(path);
      }
    });
  },
});

/**
 * `[location] sql`: one argument is the SQL, in the default location; but one without a space cannot be a query of
 * these views, so it is taken for a location whose SQL is missing. With --schema the one argument is the location.
 */
function locationAndSql(
  first: string | undefined,
  second: string | undefined,
  schema: boolean,
): [string, string | undefined] {
  if (schema) {
    if (second !== undefined) throw new UsageError('--schema lists the views; it takes a location, no SQL');
    return [first ?? DEFAULT_LOCATION, undefined];
  }
  if (second !== undefined) return [first as string, second];
  if (first === undefined || !/\s/.test(first.trim())) {
    throw new UsageError(
      `missing <sql> (one SQL statement, e.g. "SELECT count(*) FROM orders"); usage: shopsnap query [location] <sql>`,
    );
  }
  return [DEFAULT_LOCATION, first];
}

const EXTENSIONS: Readonly<Record<string, Exclude<ResultFormat, 'table'>>> = {
  '.csv': 'csv',
  '.json': 'json',
  '.ndjson': 'ndjson',
  '.jsonl': 'ndjson',
  '.parquet': 'parquet',
};

function resultFormat(given: ResultFormat | undefined, json: boolean, out: string | undefined): ResultFormat {
  const format = given ?? (json ? 'json' : out === undefined ? 'table' : EXTENSIONS[extname(out).toLowerCase()]);
  if (format === undefined) {
    throw new UsageError(`--out ${out}: name its format with --format csv, json, ndjson or parquet`);
  }
  if (format === 'table' && out !== undefined) {
    throw new UsageError('--out writes csv, json, ndjson or parquet; a table is for the terminal');
  }
  if (format === 'parquet' && out === undefined && process.stdout.isTTY) {
    throw new UsageError('--format parquet is binary: write it with --out FILE or redirect stdout');
  }
  return format;
}

/** The result into `path` whole or not at all: a temp file beside it (made first, so an unwritable place says so). */
async function writeResultFile(
  connection: DuckDBConnection,
  sql: string,
  format: Exclude<ResultFormat, 'table'>,
  path: string,
): Promise<void> {
  const temp = tempPathFor(path);
  try {
    await (await open(temp, 'wx', 0o600)).close();
  } catch (error) {
    throw writeError(error, path);
  }
  try {
    await copyResult(connection, sql, format, temp);
    await rename(temp, path).catch((error) => {
      throw writeError(error, path);
    });
  } finally {
    await rm(temp, { force: true });
  }
}

async function toStdout(path: string): Promise<void> {
  for await (const chunk of createReadStream(path)) {
    if (!process.stdout.write(chunk)) await new Promise((resolve) => process.stdout.once('drain', resolve));
  }
}

function schemaText(
  views: ReadonlyArray<{ name: string; columns: ReadonlyArray<{ name: string; type: string }> }>,
  read: readonly string[],
): string {
  const shown = read.length > 5 ? [...read.slice(0, 5), `and ${read.length - 5} more`] : read;
  const lines = [`The table views read ${read.length === 0 ? 'no snapshot' : shown.join(', ')}.`];
  for (const view of views) {
    const width = Math.max(...view.columns.map((column) => column.name.length));
    lines.push('', view.name, ...view.columns.map((column) => `  ${column.name.padEnd(width)}  ${column.type}`));
  }
  return `${lines.join('\n')}\n`;
}
