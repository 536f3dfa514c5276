import { LIVE_OUTCOMES, type LiveCheckReport, liveCheck, liveCheckPassed } from '../runner/live-check.js';
import { stringifyJson } from '../shopify/json.js';
import {
  type Catalog,
  catalogLocation,
  completeSnapshots,
  listSnapshots,
  type SnapshotEntry,
} from '../snapshot/catalog.js';
import type { Manifest } from '../snapshot/manifest.js';
import { ShopClient } from '../source/shop-client.js';
import { EXIT, type ExitCode } from './exit-codes.js';
import { type FlagValues, flag, wholeNumber } from './flags.js';
import { parseShopAddress, type ShopAddress } from './shop-address.js';
import { SHOP_FLAGS } from './shop-flags.js';
import { resolveToken } from './token.js';
import { UsageError } from './usage-error.js';

const GROUP = 'Live check:';

/** verify's flags for the live check. */
export const LIVE_FLAGS = {
  live: flag.boolean({
    describe: 'Instead of re-reading the files, compare a random sample of the records with what the shop serves now',
    default: false,
    group: GROUP,
  }),
  sample: flag.number({
    describe: 'Records of each resource the live check fetches, one request each',
    default: 25,
    check: wholeNumber(1, 100_000),
    group: GROUP,
  }),
  shop: { ...SHOP_FLAGS.shop, group: GROUP },
  token: { ...SHOP_FLAGS.token, group: GROUP },
  tokenFile: { ...SHOP_FLAGS.tokenFile, group: GROUP },
};

/**
 * `verify --live`: one snapshot, or a shop folder's newest complete snapshot, compared record by record with the shop
 * (see liveCheck). Exit 4 when the snapshot holds a record otherwise than the shop serves it under the same updated_at.
 */
export async function verifyLive(
  catalog: Catalog,
  args: FlagValues<typeof LIVE_FLAGS> & { json: boolean },
): Promise<ExitCode> {
  if (catalog.scope.kind === 'destination') {
    throw new UsageError(`--live checks one shop: name a snapshot or a shop folder, not ${catalogLocation(catalog)}`);
  }
  // A snapshot named is checked whatever its status; of a shop folder, the newest complete one.
  const entries = await listSnapshots(catalog);
  const newest = (catalog.scope.kind === 'snapshot' ? withManifest(entries) : completeSnapshots(entries)).at(-1);
  if (newest === undefined) {
    throw new UsageError(
      `no ${catalog.scope.kind === 'snapshot' ? '' : 'complete '}snapshot at ${catalogLocation(catalog)} to check`,
    );
  }
  const shop = shopOf(newest.shop, args.shop);
  const client = new ShopClient({ shopUrl: shop.origin, token: await resolveToken(args), depth: 4 });
  let report: LiveCheckReport;
  try {
    report = await liveCheck({
      storage: catalog.storage,
      prefix: newest.key,
      manifest: newest.manifest,
      client,
      sample: args.sample,
    });
  } finally {
    client.close();
  }
  const passed = liveCheckPassed(report);
  if (args.json) process.stdout.write(`${stringifyJson({ ...report, shop: shop.origin, passed })}\n`);
  else process.stdout.write(`${reportLines(report, shop, passed).join('\n')}\n`);
  return passed ? EXIT.complete : EXIT.verifyFailed;
}

function withManifest(entries: readonly SnapshotEntry[]): Array<SnapshotEntry & { manifest: Manifest }> {
  return entries.filter((entry): entry is SnapshotEntry & { manifest: Manifest } => entry.manifest !== undefined);
}

function reportLines(report: LiveCheckReport, shop: ShopAddress, passed: boolean): string[] {
  const lines = Object.entries(report.resources).map(([resource, counts]) => {
    const outcomes = LIVE_OUTCOMES.filter((outcome) => outcome !== 'unchecked' || counts.unchecked > 0).map(
      (outcome) => `${counts[outcome]} ${outcome === 'changed' ? 'changed since' : outcome}`,
    );
    return `${resource.padEnd(10)} ${counts.sampled} of ${counts.records} sampled: ${outcomes.join(', ')}`;
  });
  for (const { outcome, resource, id, reason } of report.findings) {
    lines.push(`${outcome.padEnd(10)} ${resource} ${id}: ${reason}`);
  }
  const differing = report.findings.filter((finding) => finding.outcome === 'differs').length;
  lines.push(
    passed
      ? `OK ${report.location} matches ${shop.origin}`
      : `FAILED ${report.location}: ${differing} record${differing === 1 ? '' : 's'} not as the shop serves ${differing === 1 ? 'it' : 'them'}`,
  );
  return lines;
}

/**
 * The shop to ask: `--shop`, which must be the snapshot's own, or else the snapshot's shop when its folder name is a
 * shop address (`name.myshopify.com`; a simulated shop's folder, `127.0.0.1-8080`, does not say http or https).
 */
function shopOf(snapshotShop: string, named: string | undefined): ShopAddress {
  if (named === undefined) {
    try {
      return parseShopAddress(snapshotShop);
    } catch {
      throw new UsageError(`the snapshot is of ${snapshotShop}: name its address with --shop (or SHOPSNAP_SHOP)`);
    }
  }
  const shop = parseShopAddress(named);
  if (shop.key !== snapshotShop) {
    throw new UsageError(
      `the shop ${named} (--shop or SHOPSNAP_SHOP) is ${shop.key}, but the snapshot is of ${snapshotShop}`,
    );
  }
  return shop;
}
