import type { Manifest } from '../snapshot/manifest.js';
import { findPreviousManifest } from '../snapshot/previous.js';
import { newSnapshotId } from '../snapshot/snapshot-id.js';
import type { Storage } from '../storage/storage.js';

/**
 * How long a shop's backup is expected to take: as long as its last complete snapshot took. Undefined when there is
 * none, or when that one was finished by a resumed run (its times include the crash and the wait for the lease).
 */
export function expectedDurationMs(previous: Manifest | undefined): number | undefined {
  if (previous === undefined || previous.resumed !== undefined) return undefined;
  const ms = Date.parse(previous.finished_at) - Date.parse(previous.started_at);
  return Number.isFinite(ms) && ms >= 0 ? ms : undefined;
}

/**
 * The order in which a worker starts its shops: the slowest first, so the shop that decides when the job ends is never
 * queued behind quick ones. Shops with no snapshot yet come first (a shop never backed up may be the largest): by
 * `firstRunMs`, the estimate from their counts, longest first, where there is one, else in job order; then the rest
 * by expected duration, longest first (job order among equals).
 */
export function slowestFirst(
  expectedMs: ReadonlyArray<number | undefined>,
  firstRunMs: ReadonlyArray<number | undefined> = [],
): number[] {
  const rank = (i: number) => expectedMs[i] ?? Number.POSITIVE_INFINITY;
  const firstRank = (i: number) => (expectedMs[i] === undefined ? (firstRunMs[i] ?? Number.POSITIVE_INFINITY) : 0);
  return expectedMs.map((_, i) => i).sort((a, b) => rank(b) - rank(a) || firstRank(b) - firstRank(a) || a - b);
}

/** Expected durations of the shops from their newest complete snapshots in `storage`; undefined where unknown. */
export function expectedDurations(
  storage: Storage,
  shopKeys: readonly string[],
  now: Date,
): Promise<Array<number | undefined>> {
  const latest = newSnapshotId(now);
  return Promise.all(
    shopKeys.map((key) => findPreviousManifest(storage, key, latest).then(expectedDurationMs, () => undefined)),
  );
}
