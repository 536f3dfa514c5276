import type { ShopOutcome } from '../runner/run-job.js';
import { RESOURCES } from '../shopify/resources.js';
import type { SnapshotEntry } from '../snapshot/catalog.js';
import type { CountCheck, RecordChanges } from '../snapshot/manifest.js';
import { describeDuration } from '../snapshot/retention.js';
import { requestsOf, snapshotFacts } from '../snapshot/snapshot-facts.js';
import { snapshotTime } from '../snapshot/snapshot-id.js';
import { snapshotWarnings, type Warning } from './warnings.js';

/**
 * What a snapshot folder is to a person looking at the history: a manifest's status, or for a folder without one
 * whether a run is on it now (`running`), may still be resumed (`unfinished`: its run failed or was killed), or never
 * will be (`abandoned`). `failed`: a run a fleet summary reports failed, which left no snapshot of its own.
 */
export type RunStatus = 'complete' | 'incomplete' | 'damaged' | 'running' | 'unfinished' | 'abandoned' | 'failed';
export type ShopStatus = 'ok' | 'warning' | 'failing';

/** One snapshot folder of the shop, in figures (see SnapshotFacts). */
export interface SnapshotPoint {
  snapshot_id: string;
  status: RunStatus;
  started_at: string;
  finished_at: string | null;
  duration_s: number | null;
  requests: number | null;
  files: number;
  bytes: number;
  /** Per resource: records exported, the shop's counts and the check; empty without a manifest. */
  resources: Record<string, { exported: number; count_before: number; count_after: number; check: CountCheck }>;
  /** Added, removed and changed since the previous complete snapshot, per resource; null when not recorded. */
  changes: Record<string, RecordChanges> | null;
}

export interface LastRun extends Omit<SnapshotPoint, 'snapshot_id' | 'started_at'> {
  /** Null for a failed run that left no snapshot folder. */
  snapshot_id: string | null;
  started_at: string | null;
  /** A failed run's error, from the fleet summary. */
  error?: string;
}

export interface ShopReport {
  shop: string;
  status: ShopStatus;
  last_run: LastRun | null;
  /** The newest complete snapshot's id. */
  last_complete: string | null;
  /** Oldest first. */
  snapshots: SnapshotPoint[];
  /** Newest first. */
  warnings: Warning[];
}

/** How the folders without a manifest are read: which one a live run is on, and how old a run may be resumed. */
export interface RunContext {
  now: number;
  windowMs: number;
  resumeMaxAgeMs: number;
  /** The snapshot a live run of the shop is working on (its lease is live and its checkpoint names it). */
  running?: string | undefined;
  /** The shop's outcome in the newest fleet summary that lists it, and when that job run began and ended. */
  fleet?: { outcome: Omit<ShopOutcome, 'cause'>; started_at: string; finished_at: string; job: string } | undefined;
}

/** The report of one shop from its snapshot folders (`entries`, oldest first, as the catalog lists them). */
export function shopReport(shop: string, entries: readonly SnapshotEntry[], context: RunContext): ShopReport {
  const snapshots = entries.map((entry) => snapshotPoint(entry, context));
  const newest = snapshots.at(-1);
  const fleet = context.fleet;
  // A job's failure is the last run when no snapshot began after that job did (its own unfinished folder aside).
  const failedLast =
    fleet?.outcome.status === 'failed' &&
    (newest === undefined ||
      Date.parse(newest.started_at) < Date.parse(fleet.started_at) ||
      (newest.status !== 'complete' && newest.status !== 'incomplete' && newest.status !== 'running'));
  const lastRun: LastRun | null = failedLast ? failedRun(fleet, newest) : newest === undefined ? null : { ...newest };
  const lastComplete = snapshots.filter((snapshot) => snapshot.status === 'complete').at(-1);
  const warnings = [
    ...fleetFailure(context, failedLast),
    ...noRecentComplete(lastComplete, context),
    ...[...snapshots].reverse().flatMap((snapshot, i) =>
      snapshotWarnings(
        snapshot,
        entries.find((entry) => entry.id === snapshot.snapshot_id) as SnapshotEntry,
        // Only the last run fails the shop; trouble in an earlier one, since followed by others, is a warning.
        i === 0 && !failedLast,
      ),
    ),
  ];
  const lastFailed = lastRun !== null && !['complete', 'running'].includes(lastRun.status);
  const status: ShopStatus =
    lastRun === null || lastFailed || warnings.some((warning) => warning.severity === 'failure')
      ? 'failing'
      : warnings.some((warning) => warning.severity === 'warning')
        ? 'warning'
        : 'ok';
  return {
    shop,
    status,
    last_run: lastRun,
    last_complete: lastComplete?.snapshot_id ?? null,
    snapshots,
    warnings,
  };
}

function snapshotPoint(entry: SnapshotEntry, context: RunContext): SnapshotPoint {
  const facts = snapshotFacts(entry);
  const manifest = entry.manifest;
  const resources: SnapshotPoint['resources'] = {};
  for (const resource of RESOURCES) {
    const summary = manifest?.resources[resource];
    if (summary === undefined) continue;
    const { exported, count_before, count_after, check } = summary;
    resources[resource] = { exported, count_before, count_after, check };
  }
  return {
    snapshot_id: entry.id,
    status: runStatus(entry, context),
    started_at: facts.started_at ?? new Date(snapshotTime(entry.id)).toISOString(),
    finished_at: facts.finished_at,
    duration_s: facts.duration_s,
    requests: manifest === undefined ? null : requestsOf(manifest),
    files: facts.files,
    bytes: facts.bytes,
    resources,
    changes: facts.changes?.resources ?? null,
  };
}

function runStatus(entry: SnapshotEntry, context: RunContext): RunStatus {
  if (entry.state !== 'unfinished') return entry.state;
  if (entry.id === context.running) return 'running';
  return context.now - snapshotTime(entry.id) <= context.resumeMaxAgeMs ? 'unfinished' : 'abandoned';
}

function failedRun(fleet: NonNullable<RunContext['fleet']>, newest: SnapshotPoint | undefined): LastRun {
  // The job's own unfinished folder, if the failure came after parts were committed.
  const own =
    newest !== undefined && Date.parse(newest.started_at) >= Date.parse(fleet.started_at) ? newest : undefined;
  return {
    snapshot_id: own?.snapshot_id ?? null,
    status: 'failed',
    started_at: own?.started_at ?? null,
    finished_at: fleet.finished_at,
    duration_s: null,
    requests: null,
    files: own?.files ?? 0,
    bytes: own?.bytes ?? 0,
    resources: {},
    changes: null,
    error: fleet.outcome.error ?? 'no error recorded',
  };
}

/** The fleet summary's failure of the shop: the last run's, or one that later runs have since followed (a warning). */
function fleetFailure(context: RunContext, last: boolean): Warning[] {
  const { fleet } = context;
  if (fleet?.outcome.status !== 'failed') return [];
  const error = fleet.outcome.error ?? 'no error recorded';
  return [
    last
      ? { severity: 'failure', kind: 'failed_run', snapshot_id: null, message: `the last run failed: ${error}` }
      : {
          severity: 'warning',
          kind: 'failed_run',
          snapshot_id: null,
          message: `job ${fleet.job} failed this shop in its run ending ${fleet.finished_at}, since followed by other runs: ${error}`,
        },
  ];
}

function noRecentComplete(lastComplete: SnapshotPoint | undefined, context: RunContext): Warning[] {
  if (lastComplete !== undefined && context.now - snapshotTime(lastComplete.snapshot_id) <= context.windowMs) return [];
  return [
    {
      severity: 'failure',
      kind: 'no_recent_complete',
      snapshot_id: lastComplete?.snapshot_id ?? null,
      message:
        lastComplete === undefined
          ? 'no complete snapshot at all'
          : `no complete snapshot in the last ${describeDuration(context.windowMs)}: the newest is ${lastComplete.snapshot_id}`,
    },
  ];
}
