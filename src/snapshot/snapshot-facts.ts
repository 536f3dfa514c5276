import type { SnapshotEntry } from './catalog.js';
import type { Manifest, RecordChanges } from './manifest.js';

/**
 * One snapshot in figures, as `snapshots --json` prints it and `query`'s `snapshots` view and `report` read it: what
 * has no manifest is null.
 */
export interface SnapshotFacts {
  shop: string;
  id: string;
  status: SnapshotEntry['state'];
  /** Records exported per resource. */
  records: Record<string, number> | null;
  /** Objects under the snapshot's folder and their bytes, manifest included. */
  files: number;
  bytes: number;
  started_at: string | null;
  finished_at: string | null;
  duration_s: number | null;
  resumed: NonNullable<Manifest['resumed']> | null;
  changes: SnapshotChanges | null;
  /** Why a damaged snapshot's manifest cannot be read. */
  problem?: string;
}

/** What changed since the shop's previous complete snapshot, as manifests that record it say. */
export interface SnapshotChanges {
  since: string;
  resources: Record<string, RecordChanges>;
}

export function snapshotFacts(entry: SnapshotEntry): SnapshotFacts {
  const { manifest } = entry;
  const seconds =
    manifest === undefined ? null : (Date.parse(manifest.finished_at) - Date.parse(manifest.started_at)) / 1000;
  return {
    shop: entry.shop,
    id: entry.id,
    status: entry.state,
    records:
      manifest === undefined
        ? null
        : Object.fromEntries(
            Object.entries(manifest.resources).map(([resource, summary]) => [resource, summary?.exported ?? 0]),
          ),
    files: entry.objects,
    bytes: entry.bytes,
    started_at: manifest?.started_at ?? null,
    finished_at: manifest?.finished_at ?? null,
    duration_s: seconds === null || Number.isNaN(seconds) ? null : seconds,
    resumed: manifest?.resumed ?? null,
    changes: manifest === undefined ? null : changesOf(manifest),
    ...(entry.problem === undefined ? {} : { problem: entry.problem }),
  };
}

/** The manifest's `changes`, when it records them in the expected shape. */
function changesOf(manifest: Manifest): SnapshotChanges | null {
  const changes = (manifest as { changes?: Partial<SnapshotChanges> }).changes;
  if (typeof changes?.since !== 'string' || typeof changes.resources !== 'object' || changes.resources === null) {
    return null;
  }
  return changes as SnapshotChanges;
}

/** Requests the snapshot's crawl sent: the sum of its resources' `requests`. */
export function requestsOf(manifest: Manifest): number {
  return Object.values(manifest.resources).reduce((sum, summary) => sum + (summary?.requests ?? 0), 0);
}
