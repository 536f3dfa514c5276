import { bytes } from '../../human.js';
import { prune } from '../../runner/prune.js';
import { openCatalog } from '../../snapshot/catalog.js';
import { describeDuration, parseDuration, type RetentionDecision } from '../../snapshot/retention.js';
import { defineCommand } from '../command.js';
import { flag, wholeNumber } from '../flags.js';
import { S3_READ_FLAGS, s3SettingsFrom } from '../s3-flags.js';
import { shopFolder } from '../shop-address.js';
import { UsageError } from '../usage-error.js';

export const pruneCommand = defineCommand({
  name: 'prune',
  describe: 'Remove snapshots older than a window, never the newest complete ones',
  positionals: { location: 'Destination (directory or s3://bucket/prefix), or one shop folder in it' },
  flags: {
    keepWithin: flag.string({
      describe: 'Remove snapshots started longer ago than this: days or hours, e.g. 35d or 12h (required)',
      check: (text) => (parseDuration(text) === undefined ? 'must be days or hours, e.g. 35d or 12h' : undefined),
    }),
    keepLast: flag.number({
      describe: 'Keep this many newest complete snapshots of each shop, however old',
      default: 7,
      check: wholeNumber(0, 1_000_000),
    }),
    shop: flag.string({ describe: 'Only this shop: name, name.myshopify.com or its folder name' }),
    dryRun: flag.boolean({ describe: 'Say what would be removed; remove nothing', default: false }),
    ...S3_READ_FLAGS,
  },
  examples: [
    ['What a 35-day window would remove', '$0 prune ./snapshots --keep-within 35d --dry-run'],
    [
      'One shop in S3, keeping at least 3',
      '$0 prune s3://backups/shopsnap --shop my-shop --keep-within 90d --keep-last 3',
    ],
  ],
  run: async (flags) => {
    const keepWithinMs = flags.keepWithin === undefined ? undefined : parseDuration(flags.keepWithin);
    if (keepWithinMs === undefined) throw new UsageError('--keep-within is required: the window, e.g. 35d or 12h');
    const catalog = await openCatalog(flags.location, s3SettingsFrom(flags));
    if (catalog.scope.kind === 'snapshot') {
      throw new UsageError(`${flags.location} is one snapshot; prune takes a destination or a shop folder`);
    }
    const shop = flags.shop === undefined ? undefined : shopFolder(flags.shop);
    if (shop !== undefined && catalog.scope.kind === 'shop' && catalog.scope.shop !== shop) {
      throw new UsageError(`${flags.location} is the folder of ${catalog.scope.shop}, not of ${shop}`);
    }
    const verb = flags.dryRun ? 'would remove' : 'removed';
    const report = await prune({
      catalog,
      shop,
      policy: { keepWithinMs, keepLast: flags.keepLast },
      dryRun: flags.dryRun,
      onRemove: (decision) => {
        if (!flags.json) process.stdout.write(`${verb} ${describeRemoval(decision)}\n`);
      },
    });
    if (flags.json) {
      const snapshots = report.shops.flatMap(({ decisions }) =>
        decisions.map(({ entry, remove, reason }) => ({
          shop: entry.shop,
          id: entry.id,
          state: entry.state,
          action: remove ? 'remove' : 'keep',
          reason,
          objects: entry.objects,
          bytes: entry.bytes,
        })),
      );
      const held = report.shops.flatMap(({ shop, hold }) => (hold === undefined ? [] : [{ shop, reason: hold }]));
      const summary = {
        location: report.location,
        dry_run: report.dryRun,
        keep_within: describeDuration(keepWithinMs),
        keep_last: flags.keepLast,
        removed: report.removed,
        kept: report.kept,
        held,
        snapshots,
      };
      process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
      return;
    }
    if (report.shops.length === 0) {
      process.stdout.write(`no snapshots${shop === undefined ? '' : ` of ${shop}`} under ${flags.location}\n`);
      return;
    }
    for (const { shop, hold } of report.shops) {
      if (hold !== undefined) process.stdout.write(`held ${shop}: ${hold}, so every snapshot with a manifest stays\n`);
    }
    const { snapshots, objects, bytes: size } = report.removed;
    process.stdout.write(
      `${verb} ${snapshots} snapshot${snapshots === 1 ? '' : 's'} (${objects} files, ${bytes(size)}); kept ${report.kept}\n`,
    );
  },
});

function describeRemoval({ entry, reason }: RetentionDecision): string {
  return `${entry.shop}/${entry.id}  ${entry.state}  ${entry.objects} files  ${bytes(entry.bytes)}  (${reason})`;
}
