import { type Catalog, catalogLocation, openCatalog } from '../../snapshot/catalog.js';
import { MANIFEST_NAME, whyIncomplete } from '../../snapshot/manifest.js';
import { VerifyError, type VerifyReport } from '../../snapshot/verify.js';
import { type SnapshotVerdict, type Verdict, verifyCatalog } from '../../snapshot/verify-catalog.js';
import { exitCodeOf } from '../backup-run.js';
import { defineCommand } from '../command.js';
import { EXIT, type ExitCode } from '../exit-codes.js';
import { S3_READ_FLAGS, s3SettingsFrom } from '../s3-flags.js';
import { LIVE_FLAGS, verifyLive } from '../verify-live.js';

export const verifyCommand = defineCommand({
  name: 'verify',
  describe: 'Re-hash and re-count every file of a snapshot, or of every snapshot under a folder, against its manifest',
  positionals: {
    location: 'A snapshot (its folder or manifest.json), a shop folder or a whole destination; a path or s3://',
  },
  flags: { ...LIVE_FLAGS, ...S3_READ_FLAGS },
  examples: [
    ['Check one snapshot', '$0 verify ./snapshots/my-shop.myshopify.com/20261122T050623123Z'],
    ['Check every snapshot of one shop', '$0 verify ./snapshots/my-shop.myshopify.com'],
    ['Check every snapshot in a bucket', '$0 verify s3://backups/shopsnap'],
    [
      'Compare 50 records of each resource of the newest snapshot with the shop (token in SHOPSNAP_TOKEN)',
      '$0 verify ./snapshots/my-shop.myshopify.com --live --sample 50',
    ],
  ],
  run: async (args) => {
    const catalog = await openCatalog(args.location, s3SettingsFrom(args));
    if (args.live) {
      process.exitCode = await verifyLive(catalog, args);
      return;
    }
    process.exitCode =
      catalog.scope.kind === 'snapshot' ? await verifyOne(catalog, args.json) : await verifyAll(catalog, args.json);
  },
});

/** One snapshot: its files listed by problem, then one verdict line; a snapshot without a readable manifest fails. */
async function verifyOne(catalog: Catalog, json: boolean): Promise<ExitCode> {
  const location = catalogLocation(catalog);
  let result: SnapshotVerdict | undefined;
  for await (const verdict of verifyCatalog(catalog)) result = verdict;
  if (result === undefined) throw new VerifyError(`no snapshot at ${location}: nothing is there`);
  const { entry, verdict, report } = result;
  if (report === undefined) {
    throw new VerifyError(
      verdict === 'damaged'
        ? `${entry.problem}; the snapshot cannot be verified`
        : `no ${MANIFEST_NAME} in ${location}: not a snapshot (${unfinishedWhy(entry.objects)})`,
    );
  }
  const reason = verdict === 'incomplete' && entry.manifest ? whyIncomplete(entry.manifest) : undefined;
  if (json) {
    const { state } = entry;
    process.stdout.write(
      `${JSON.stringify({ ...report, state, verdict, passed: verdict === 'ok', reason }, null, 2)}\n`,
    );
  } else {
    const last =
      verdict === 'ok'
        ? `OK ${location}`
        : verdict === 'incomplete'
          ? `INCOMPLETE ${location}: the manifest says incomplete (${reason})`
          : `FAILED ${location}`;
    process.stdout.write(`${[...problemLines(report, ''), filesLine(report), last].join('\n')}\n`);
  }
  if (verdict === 'incomplete' && entry.manifest) return exitCodeOf(entry.manifest);
  return verdict === 'ok' ? EXIT.complete : EXIT.verifyFailed;
}

/**
 * Every snapshot under a shop folder or destination: a line for each as it is verified, then a total. Fails (4) on a
 * damaged snapshot or manifest, or when there is no complete snapshot at all; incomplete and unfinished snapshots are
 * listed, not held against the destination (the backups that left them already exited non-zero).
 */
async function verifyAll(catalog: Catalog, json: boolean): Promise<ExitCode> {
  const location = catalogLocation(catalog);
  const results: SnapshotVerdict[] = [];
  for await (const result of verifyCatalog(catalog)) {
    results.push(result);
    if (!json) process.stdout.write(`${snapshotLines(result).join('\n')}\n`);
  }
  const totals = Object.fromEntries(VERDICTS.map((verdict) => [verdict, 0])) as Record<Verdict, number>;
  for (const { verdict } of results) totals[verdict]++;
  const complete = results.filter(({ entry }) => entry.state === 'complete').length;
  const passed = totals.failed === 0 && totals.damaged === 0 && complete > 0;
  if (json) {
    const snapshots = results.map(({ entry, verdict, report }) => ({
      shop: entry.shop,
      id: entry.id,
      location: `${catalog.storage.location}/${entry.key}`,
      state: entry.state,
      verdict,
      objects: entry.objects,
      bytes: entry.bytes,
      ...report,
      ...(verdict === 'incomplete' && entry.manifest ? { reason: whyIncomplete(entry.manifest) } : {}),
      ...(entry.problem === undefined ? {} : { problem: entry.problem }),
    }));
    process.stdout.write(`${JSON.stringify({ location, passed, totals, snapshots }, null, 2)}\n`);
  } else {
    const counts = VERDICTS.filter((verdict) => verdict === 'ok' || totals[verdict] > 0).map(
      (verdict) => `${totals[verdict]} ${verdict === 'ok' ? 'OK' : verdict}`,
    );
    const total = `${results.length} snapshot${results.length === 1 ? '' : 's'} under ${location}: ${counts.join(', ')}`;
    if (results.length > 0) process.stdout.write(`${total}\n`);
    if (complete === 0) {
      throw new VerifyError(`no ${results.length === 0 ? '' : 'complete '}snapshot under ${location}`);
    }
  }
  return passed ? EXIT.complete : EXIT.verifyFailed;
}

const VERDICTS: readonly Verdict[] = ['ok', 'failed', 'incomplete', 'unfinished', 'damaged'];

function snapshotLines({ entry, verdict, report }: SnapshotVerdict): string[] {
  const head = `${verdict.toUpperCase().padEnd(10)}  ${entry.key}  `;
  if (report === undefined) {
    return [
      `${head}${verdict === 'damaged' ? entry.problem : `no ${MANIFEST_NAME} (${unfinishedWhy(entry.objects)})`}`,
    ];
  }
  if (verdict === 'incomplete' && entry.manifest) {
    return [`${head}${filesLine(report)}; the manifest says incomplete (${whyIncomplete(entry.manifest)})`];
  }
  return [`${head}${filesLine(report)}`, ...problemLines(report, '  ')];
}

function unfinishedWhy(objects: number): string {
  return `${objects} file${objects === 1 ? '' : 's'} of a run that has not finished, or whose manifest was deleted`;
}

function filesLine(report: VerifyReport): string {
  const { checked, missing, extra, differing } = report;
  return `${checked} files checked, ${missing.length} missing, ${extra.length} extra, ${differing.length} differing`;
}

function problemLines(report: VerifyReport, indent: string): string[] {
  return [
    ...report.missing.map((path) => `${indent}missing   ${path}`),
    ...report.extra.map((path) => `${indent}extra     ${path}`),
    ...report.differing.map(({ path, reason }) => `${indent}differs   ${path}: ${reason}`),
  ];
}
