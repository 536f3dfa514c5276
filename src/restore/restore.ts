import { setMaxListeners } from 'node:events';
import { join } from 'node:path';
import { count } from '../human.js';
import { writeFileDurably } from '../local-file.js';
import type { Logger } from '../log.js';
import type { ResourceName } from '../shopify/resources.js';
import { ShopClient } from '../source/shop-client.js';
import type { S3Settings } from '../storage/index.js';
import { RestoreError } from './errors.js';
import { type ExecuteResult, executePlan } from './execute.js';
import { IdMap } from './id-map.js';
import { Journal } from './journal.js';
import { type Plan, planRestore, type RestoreMode } from './plan.js';
import { ProductMarkers } from './product-markers.js';
import { type Estimate, type RestoreReport, resourceReports, saveReport } from './report.js';
import { resolveScope } from './scope.js';
import { openRestoreSource, type RestoreSource } from './source.js';
import { holdStateLock } from './state-lock.js';
import { indexTarget } from './target.js';
import { type Verification, verificationPassed, verifyRestore } from './verify.js';

export interface RestoreRequest {
  /** The snapshot (or a shop folder: its newest complete snapshot), local or s3://. */
  snapshot: string;
  s3: S3Settings;
  /** The shop to write into: its origin, and its key (the folder name its snapshots have). */
  target: { origin: string; key: string };
  token: string;
  /** Default: recover when the target is the snapshot's own shop, else migrate. */
  mode: RestoreMode | undefined;
  resources: readonly ResourceName[];
  only: Partial<Record<ResourceName, Set<string>>>;
  /** Plan, print, write nothing. */
  planOnly: boolean;
  /** Asked with the plan before anything is written; false declines. */
  confirm(report: RestoreReport): Promise<boolean>;
  updateExisting: boolean;
  prune: boolean;
  sendInvites: boolean;
  /** Where to write one activation URL per created customer (CSV). */
  activationUrls: string | undefined;
  /** The folder under which each restore (snapshot + target) keeps its journal, id map and reports. */
  stateRoot: string;
  logger?: Logger | undefined;
  signal?: AbortSignal | undefined;
}

export interface RestoreOutcome {
  report: RestoreReport;
  /** The report file (none for --plan or a declined restore). */
  reportPath: string | undefined;
  /** Records that could not be restored: failures, conflicts, differences after writing. */
  incomplete: boolean;
}

/** Writes in flight at once. The pacer holds them to the shop's bucket; this covers a Plus bucket's round trips. */
const WRITES_AT_ONCE = 32;

/**
 * `shopsnap restore`: reads the snapshot, indexes the target with the backup's crawl, plans, and (unless --plan, and
 * once confirmed) writes the plan with a journal, reads everything written back, and reports. Running it again with
 * the same snapshot and target resumes from the journal; once complete, it plans nothing.
 */
export async function runRestore(request: RestoreRequest): Promise<RestoreOutcome> {
  const startedAt = new Date().toISOString();
  const planning = performance.now();
  const logger = request.logger;
  // Every request in flight listens to the signal: more than Node's default of 10 is the normal case.
  if (request.signal !== undefined) setMaxListeners(0, request.signal);
  const source = await openRestoreSource(request.snapshot, request.s3);
  const mode = modeOf(request, source);
  const folder = join(request.stateRoot, `${source.shop}_${source.snapshotId}_to_${request.target.key}`);
  const lock = request.planOnly ? undefined : await holdStateLock(folder);
  const journal = request.planOnly ? Journal.read(folder) : await Journal.open(folder);
  const client = new ShopClient({
    shopUrl: request.target.origin,
    token: request.token,
    depth: WRITES_AT_ONCE,
    signal: request.signal,
  });
  try {
    const ids = IdMap.fromJournal(journal);
    const scope = await resolveScope(source, request.resources, request.only);
    const indexed = (Object.keys(scope) as ResourceName[]).filter((resource) => {
      const ids = scope[resource];
      return ids === 'all' || ids.size > 0;
    });
    logger?.info(
      { resources: indexed, target: request.target.origin, mode },
      `restore: reading what ${request.target.origin} holds (${indexed.join(', ')})`,
    );
    const target = await indexTarget({
      client,
      shopUrl: request.target.origin,
      token: request.token,
      resources: indexed,
      depth: WRITES_AT_ONCE,
      signal: request.signal,
      logger,
    });
    const products = target.indexes.products;
    const markers =
      products === undefined
        ? undefined
        : new ProductMarkers(client, products, target.records.products?.values() ?? []);
    const plan = await planRestore(
      source,
      target,
      ids,
      journal,
      {
        mode,
        scope,
        updateExisting: request.updateExisting,
        prune: request.prune,
        activationUrls: request.activationUrls !== undefined,
      },
      markers,
    );
    const report: RestoreReport = {
      format: 'shopsnap.restore-report/v1',
      status: 'planned',
      mode,
      source: {
        location: source.location,
        shop: source.shop,
        snapshot_id: source.snapshotId,
        ...(source.incomplete === undefined ? {} : { incomplete: source.incomplete }),
      },
      target: request.target.origin,
      started_at: startedAt,
      finished_at: new Date().toISOString(),
      resources: resourceReports(plan, undefined, undefined),
      rows: Object.values(plan.resources).flatMap((resourcePlan) => resourcePlan.rows),
      prune: Object.values(plan.resources).flatMap((resourcePlan) => resourcePlan.prune),
      side_effects: sideEffects(request, plan),
      cannot_restore: plan.cannotRestore,
      estimate: estimateOf(plan, client),
      failures: [],
      state: { folder, journal: journal.path },
    };
    if (request.planOnly) return { report, reportPath: undefined, incomplete: false };
    if (plan.writes === 0) logger?.info('restore: nothing to write; the target holds the snapshot as planned');
    else if (!(await request.confirm(report))) {
      return { report: { ...report, status: 'declined' }, reportPath: undefined, incomplete: false };
    }
    journal.append({
      kind: 'begin',
      at: new Date().toISOString(),
      source: source.location,
      snapshot_id: source.snapshotId,
      target: request.target.origin,
      mode,
    });
    const writing = performance.now();
    const result = await executePlan({
      client,
      journal,
      ids,
      source,
      held: target.records,
      plan,
      sendInvites: request.sendInvites,
      activationUrls: request.activationUrls !== undefined,
      prune: request.prune,
      concurrency: WRITES_AT_ONCE,
      logger,
      signal: request.signal,
    });
    const idMapPath = await ids.save(folder);
    const activationUrls =
      request.activationUrls === undefined
        ? undefined
        : await writeActivationUrls(request.activationUrls, journal, ids);
    const verifying = performance.now();
    logger?.info(`restore: reading back the ${writtenCount(result)} records written`);
    const verification = await verifyRestore({
      client,
      source,
      plan,
      written: result.written,
      ids,
      countsBefore: target.counts,
    });
    const conflicts = report.rows.filter((row) => row.class === 'conflict').length;
    const incomplete = result.failures.length > 0 || conflicts > 0 || !verificationPassed(verification);
    const done: RestoreReport = {
      ...report,
      status: incomplete ? 'partial' : 'complete',
      finished_at: new Date().toISOString(),
      resources: resourceReports(plan, result, verification),
      failures: result.failures,
      verification,
      requests: {
        index: target.requests + (markers?.reads ?? 0),
        writes: result.writes,
        verify: verification.requests,
      },
      seconds: {
        plan: seconds(planning, writing),
        write: seconds(writing, verifying),
        verify: seconds(verifying, performance.now()),
      },
      state: {
        folder,
        journal: journal.path,
        id_map: idMapPath,
        ...(activationUrls === undefined ? {} : { activation_urls: activationUrls }),
      },
    };
    return { report: done, reportPath: await saveReport(folder, done), incomplete };
  } finally {
    client.close();
    journal.close();
    await lock?.release();
  }
}

function modeOf(request: RestoreRequest, source: RestoreSource): RestoreMode {
  const own = source.shop === request.target.key;
  const mode = request.mode ?? (own ? 'recover' : 'migrate');
  if (mode === 'recover' && !own) {
    throw new RestoreError(
      'ERR_USAGE',
      `--mode recover restores the shop the snapshot was taken of (${source.shop}); ${request.target.key} is another shop: migrate into it`,
    );
  }
  if (request.prune && mode !== 'recover') {
    throw new RestoreError(
      'ERR_USAGE',
      '--prune deletes what the snapshot does not have, so only in recover (the shop the snapshot was taken of)',
    );
  }
  return mode;
}

/** What the restore's writes set off beyond the records, as the plan states it before anything is written. */
function sideEffects(request: RestoreRequest, plan: Plan): string[] {
  const creates = (resource: ResourceName) => plan.resources[resource]?.counts.create ?? 0;
  const effects = [
    'no order receipts or fulfilment receipts (send_receipt and send_fulfillment_receipt false)',
    'no stock moves: orders are created with inventory_behaviour bypass, and cancelled without restock',
    'no money moves: orders are cancelled without refund or amount, and no transaction is created',
    request.sendInvites
      ? `${count(creates('customers'))} customers get an account invite email (--send-invites)`
      : 'no customer is contacted: no invite, no welcome mail (--send-invites would send invites)',
  ];
  if (request.activationUrls !== undefined) {
    effects.push(`an activation URL per created customer is written to ${request.activationUrls}`);
  }
  const orders = creates('orders');
  if (orders > 0) {
    effects.push(
      `${count(orders)} orders count in the shop's reports at their processed_at, and staff who get new-order notifications may get one mail each (a shop setting the API cannot change)`,
      'on a development or trial store Shopify allows 5 new orders a minute: restore waits for it',
    );
  }
  const deletes = Object.values(plan.resources).reduce((sum, resourcePlan) => sum + resourcePlan.prune.length, 0);
  effects.push(deletes > 0 ? `${count(deletes)} records are deleted (--prune)` : 'nothing is deleted');
  return effects;
}

/** The requests a plan sends and reads back, and their time at the bucket the target's crawl saw. */
function estimateOf(plan: Plan, client: ShopClient): Estimate {
  let written = 0;
  for (const resourcePlan of Object.values(plan.resources)) {
    written += resourcePlan.counts.create + resourcePlan.counts.update;
  }
  // One read per record written, a customer's orders per customer created (at most), a count per resource.
  const customers = plan.resources.customers?.counts.create ?? 0;
  const reads = written + customers + Object.keys(plan.resources).length;
  const bucket = client.pacer.state();
  const leak = Number.isFinite(bucket.planningLeakPerSecond) ? bucket.planningLeakPerSecond : undefined;
  const size = bucket.max;
  const requests = plan.writes + reads;
  const seconds = leak === undefined || size === undefined ? undefined : Math.max(0, requests - bucket.room) / leak;
  return { writes: plan.writes, reads, bucket: { size, leakPerSecond: leak }, seconds };
}

function seconds(fromMs: number, toMs: number): number {
  return Math.round(toMs - fromMs) / 1000;
}

function writtenCount(result: ExecuteResult): number {
  return Object.values(result.written).reduce((sum, map) => sum + map.size, 0);
}

/** Every created customer's activation URL (from the journal: those of earlier runs too) as CSV. */
async function writeActivationUrls(path: string, journal: Journal, ids: IdMap): Promise<string> {
  const rows = [['source_id', 'target_id', 'activation_url']];
  for (const [key, state] of journal.steps()) {
    if (key.step !== 'activation-url' || state.state !== 'done' || state.value === undefined) continue;
    rows.push([key.id, ids.target('customers', key.id) ?? '', state.value]);
  }
  await writeFileDurably(path, `${rows.map((row) => row.map(csvCell).join(',')).join('\n')}\n`);
  return path;
}

function csvCell(text: string): string {
  return /[",\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export type { Verification };
