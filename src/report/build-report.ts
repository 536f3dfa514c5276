import { DEFAULT_RESUME_MAX_AGE_MS } from '../runner/resume.js';
import { type Catalog, listSnapshots, type SnapshotEntry } from '../snapshot/catalog.js';
import { readCheckpoint } from '../snapshot/checkpoint.js';
import { leaseIsLive } from '../snapshot/lease.js';
import { describeDuration } from '../snapshot/retention.js';
import { readFleetSummaries, type StoredSummary } from './fleet-summaries.js';
import { type RunContext, type ShopReport, type ShopStatus, shopReport } from './shop-report.js';

export const REPORT_FORMAT = 'shopsnap.report/v1';

/** `shopsnap report --json`: the numbers the HTML report shows, for monitoring. */
export interface Report {
  format: typeof REPORT_FORMAT;
  location: string;
  generated_at: string;
  /** Within how long a complete snapshot must have been taken (`--window`). */
  window: string;
  /** The worst of the shops' statuses. */
  status: ShopStatus;
  /** The fleet summaries read (`shopsnap run` writes one per shard), oldest first. */
  fleet_summaries: Array<{ key: string; job: string; started_at: string; finished_at: string; shops: number }>;
  /** By shop name. */
  shops: ShopReport[];
  /** What could not be read (a fleet summary), in words. */
  problems: string[];
}

const SEVERITY: Readonly<Record<ShopStatus, number>> = { ok: 0, warning: 1, failing: 2 };

/**
 * The backup history of every shop in the catalog's scope, from its manifests and snapshot folders, the fleet
 * summaries at the destination's root (which also name shops whose runs left nothing), and, for a folder without a
 * manifest, the shop's lease and checkpoint (a live run on it).
 */
export async function buildReport(catalog: Catalog, options: { now: number; windowMs: number }): Promise<Report> {
  const { storage, scope } = catalog;
  const problems: string[] = [];
  const entries = await listSnapshots(catalog);
  const summaries = await readFleetSummaries(storage, (problem) => problems.push(problem));
  const inScope = (shop: string) => scope.kind === 'destination' || scope.shop === shop;
  const shops = [
    ...new Set([
      ...entries.map((entry) => entry.shop),
      ...summaries.flatMap(({ summary }) => summary.shops.map((outcome) => outcome.shop)).filter(inScope),
    ]),
  ].sort();
  const reports: ShopReport[] = [];
  for (const shop of shops) {
    const own = entries.filter((entry) => entry.shop === shop);
    const context: RunContext = {
      now: options.now,
      windowMs: options.windowMs,
      resumeMaxAgeMs: DEFAULT_RESUME_MAX_AGE_MS,
      running: await runningSnapshot(catalog, shop, own, options.now),
      fleet: newestOutcome(summaries, shop),
    };
    reports.push(shopReport(shop, own, context));
  }
  return {
    format: REPORT_FORMAT,
    location: storage.location,
    generated_at: new Date(options.now).toISOString(),
    window: describeDuration(options.windowMs),
    status: reports.reduce<ShopStatus>((worst, r) => (SEVERITY[r.status] > SEVERITY[worst] ? r.status : worst), 'ok'),
    fleet_summaries: summaries.map(({ key, summary }) => ({
      key,
      job: summary.job,
      started_at: summary.started_at,
      finished_at: summary.finished_at,
      shops: summary.shops.length,
    })),
    shops: reports,
    problems,
  };
}

/** The unfinished snapshot a live run of the shop is on: its lease is live and its checkpoint names it. */
async function runningSnapshot(
  catalog: Catalog,
  shop: string,
  entries: readonly SnapshotEntry[],
  now: number,
): Promise<string | undefined> {
  if (!entries.some((entry) => entry.state === 'unfinished')) return undefined;
  const checkpoint = await readCheckpoint(catalog.storage, shop);
  if (checkpoint === undefined || !(await leaseIsLive(catalog.storage, shop, now))) return undefined;
  return checkpoint.snapshot_id;
}

function newestOutcome(summaries: readonly StoredSummary[], shop: string): RunContext['fleet'] {
  for (const { summary } of [...summaries].reverse()) {
    const outcome = summary.shops.find((candidate) => candidate.shop === shop);
    if (outcome !== undefined) {
      return { outcome, started_at: summary.started_at, finished_at: summary.finished_at, job: summary.job };
    }
  }
  return undefined;
}
