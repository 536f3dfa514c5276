import { resolve } from 'node:path';
import { count, textTable } from '../../human.js';
import { writeFileDurably } from '../../local-file.js';
import { buildReport, type Report } from '../../report/build-report.js';
import { reportPage } from '../../report/html/page.js';
import { openCatalog } from '../../snapshot/catalog.js';
import { parseDuration } from '../../snapshot/retention.js';
import { defineCommand } from '../command.js';
import { flag } from '../flags.js';
import { S3_READ_FLAGS, s3SettingsFrom } from '../s3-flags.js';
import { UsageError } from '../usage-error.js';

const DEFAULT_HTML = 'shopsnap-report.html';

export const reportCommand = defineCommand({
  name: 'report',
  describe: 'Write one self-contained HTML page of the backup history of a shop or a fleet (--json: the same numbers)',
  positionals: { location: 'Destination (directory or s3://bucket/prefix), or one shop folder in it' },
  flags: {
    html: flag.string({
      describe: `The HTML file to write (default ${DEFAULT_HTML} here; with --json, none unless named)`,
    }),
    window: flag.string({
      describe: 'A shop whose newest complete snapshot is older than this fails: days or hours, e.g. 35d or 36h',
      default: '35d',
      check: (text) => (parseDuration(text) === undefined ? 'must be days or hours, e.g. 35d or 36h' : undefined),
    }),
    ...S3_READ_FLAGS,
  },
  examples: [
    ['A page of every shop’s backups', '$0 report s3://my-company-backups/shopsnap --html backups.html'],
    [
      'The same numbers for monitoring, alerting when a day passes without a complete snapshot',
      '$0 report ./snapshots --window 36h --json',
    ],
  ],
  run: async (args) => {
    const catalog = await openCatalog(args.location, s3SettingsFrom(args));
    if (catalog.scope.kind === 'snapshot') {
      throw new UsageError(`${args.location} is one snapshot; report takes a destination or a shop folder`);
    }
    const report = await buildReport(catalog, { now: Date.now(), windowMs: parseDuration(args.window) as number });
    const html = args.html ?? (args.json ? undefined : DEFAULT_HTML);
    if (html !== undefined) await writeFileDurably(html, reportPage(report));
    if (args.json) {
      process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
      return;
    }
    process.stdout.write(`${summary(report)}\n${resolve(html as string)}\n`);
  },
});

/** One line per shop, worst first, for the terminal; the page has the rest. */
function summary(report: Report): string {
  const rank = { failing: 0, warning: 1, ok: 2 } as const;
  const rows = [...report.shops]
    .sort((a, b) => rank[a.status] - rank[b.status] || a.shop.localeCompare(b.shop))
    .map((shop) => [
      shop.status,
      shop.shop,
      shop.last_run === null ? 'none' : `${shop.last_run.status} ${shop.last_run.snapshot_id ?? ''}`.trim(),
      shop.last_complete ?? 'none',
      count(shop.warnings.length),
    ]);
  if (rows.length === 0) return `no snapshots under ${report.location}`;
  return textTable([['status', 'shop', 'last run', 'last complete', 'warnings'], ...rows], new Set([4]));
}
