import { bytes, duration, textTable } from '../../human.js';
import { RESOURCES } from '../../shopify/resources.js';
import { catalogLocation, listSnapshots, openCatalog } from '../../snapshot/catalog.js';
import { type SnapshotChanges, type SnapshotFacts, snapshotFacts } from '../../snapshot/snapshot-facts.js';
import { defineCommand } from '../command.js';
import { flag } from '../flags.js';
import { S3_READ_FLAGS, s3SettingsFrom } from '../s3-flags.js';
import { shopFolder } from '../shop-address.js';

export const snapshotsCommand = defineCommand({
  name: 'snapshots',
  describe: 'List the snapshots under a destination or shop folder: status, records, size, duration, changes',
  positionals: { location: 'Destination (directory or s3://bucket/prefix), a shop folder in it, or one snapshot' },
  flags: {
    shop: flag.string({ describe: 'Only this shop: name, name.myshopify.com or its folder name' }),
    ...S3_READ_FLAGS,
  },
  examples: [
    ['Every snapshot of every shop', '$0 snapshots ./snapshots'],
    ['One shop in S3, as JSON', '$0 snapshots s3://backups/shopsnap --shop my-shop --json'],
  ],
  run: async (flags) => {
    const catalog = await openCatalog(flags.location, s3SettingsFrom(flags));
    const shop = flags.shop === undefined ? undefined : shopFolder(flags.shop);
    const entries = (await listSnapshots(catalog)).filter((entry) => shop === undefined || entry.shop === shop);
    const listed = entries.map(snapshotFacts);
    if (flags.json) {
      process.stdout.write(`${JSON.stringify(listed, null, 2)}\n`);
      return;
    }
    if (listed.length === 0) {
      process.stdout.write(
        `no snapshots${shop === undefined ? '' : ` of ${shop}`} under ${catalogLocation(catalog)}\n`,
      );
      return;
    }
    const problems = listed.flatMap(({ shop, id, problem }) =>
      problem === undefined ? [] : [`damaged ${shop}/${id}: ${problem}`],
    );
    process.stdout.write(
      `${[textTable([HEADER, ...listed.map(tableRow)], FIGURES), ...problems, totalLine(listed)].join('\n')}\n`,
    );
  },
});

const HEADER = ['shop', 'id', 'status', ...RESOURCES, 'size', 'duration', 'resumed', 'changes'];
/** The columns of figures: records per resource, size and duration. */
const FIGURES = new Set(HEADER.flatMap((_, column) => (column >= 3 && column < HEADER.length - 2 ? [column] : [])));

function tableRow(snapshot: SnapshotFacts): string[] {
  const { records, changes, resumed } = snapshot;
  return [
    snapshot.shop,
    snapshot.id,
    snapshot.status,
    ...RESOURCES.map((resource) =>
      records?.[resource] === undefined ? '-' : records[resource].toLocaleString('en-US'),
    ),
    bytes(snapshot.bytes),
    snapshot.duration_s === null ? '-' : duration(snapshot.duration_s),
    resumed === null ? '-' : `yes, ${resumed.attempts} earlier run${resumed.attempts === 1 ? '' : 's'}`,
    changes === null ? '-' : describeChanges(changes),
  ];
}

function describeChanges(changes: SnapshotChanges): string {
  const moved = Object.entries(changes.resources)
    .filter(([, c]) => c.added + c.removed + c.changed > 0)
    .map(([resource, c]) => `${resource} +${c.added} -${c.removed} ~${c.changed}`);
  return moved.length === 0 ? 'none' : moved.join(', ');
}

function totalLine(listed: SnapshotFacts[]): string {
  const byStatus = (['complete', 'incomplete', 'unfinished', 'damaged'] as const)
    .map((status) => [status, listed.filter((snapshot) => snapshot.status === status).length] as const)
    .filter(([, count]) => count > 0)
    .map(([status, count]) => `${count} ${status}`);
  const size = listed.reduce((sum, snapshot) => sum + snapshot.bytes, 0);
  const files = listed.reduce((sum, snapshot) => sum + snapshot.files, 0);
  const shops = new Set(listed.map((snapshot) => snapshot.shop)).size;
  return `${listed.length} snapshot${listed.length === 1 ? '' : 's'} of ${shops} shop${shops === 1 ? '' : 's'}: ${byStatus.join(', ')}; ${bytes(size)} in ${files} files`;
}
