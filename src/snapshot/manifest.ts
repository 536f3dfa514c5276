import type { ResourceName } from '../shopify/resources.js';
import type { FileFacts } from '../sink/written-file.js';

export const MANIFEST_FORMAT = 'shopsnap.manifest/v1';
export const MANIFEST_NAME = 'manifest.json';

export type CountCheck = 'ok' | 'drift' | 'mismatch';

export interface ManifestFile extends FileFacts {
  /** Relative to the manifest, '/'-separated. */
  path: string;
}

export interface ResourceSummary {
  count_before: number;
  count_after: number;
  exported: number;
  check: CountCheck;
  /** count_after − count_before: how far the shop moved while it was crawled. */
  drift: number;
  /**
   * Change seen while the resource was crawled: records created or updated at or after `since` among those exported,
   * and, when only that could decide the check, the shop's count of them (one request after the crawl). Absent in
   * manifests of older shopsnap versions.
   */
  changes_seen?: { since: string; exported: number; counted?: number };
  duplicates_dropped: number;
  unknown_fields: number;
  requests: number;
  filters: Record<string, string>;
}

/**
 * The contract other tools depend on. Written last: its presence is the only mark of a finished snapshot, and
 * `status` says whether every count check passed.
 */
export interface Manifest {
  format: typeof MANIFEST_FORMAT;
  status: 'complete' | 'incomplete';
  shop: string;
  /** The version requested (every path names it). */
  api_version: string;
  /**
   * The version the shop says served the requests (`X-Shopify-API-Version`), absent when it sent none. Shopify answers
   * a retired version as the oldest supported one, so this can be later than `api_version`.
   */
  api_version_answered?: string;
  snapshot_id: string;
  schema_version: number;
  started_at: string;
  finished_at: string;
  resources: Partial<Record<ResourceName, ResourceSummary>>;
  tables: Record<string, { rows: number }>;
  files: ManifestFile[];
  /**
   * Present when the snapshot was finished by a run that resumed it: the earlier runs, the requests they sent (up to
   * their last checkpoint), and the requests of the run that finished it.
   */
  resumed?: { attempts: number; earlier_requests: number; requests: number };
  /**
   * What changed since the shop's previous complete snapshot in the same destination (`since`: its id), per resource
   * both hold, by the record indexes: records added, removed (deleted, or no longer visible to the token and filters)
   * and changed. Absent on a first snapshot and when the previous one has no record index.
   */
  changes?: { since: string; resources: Partial<Record<ResourceName, RecordChanges>> };
  /**
   * Resources that lost most of their records since the previous complete snapshot: `removed` of its `previous`
   * records are gone (`current`: exported now).
   */
  suspicious_shrink?: { resource: string; previous: number; current: number; removed: number }[];
  /** The run was told the shrink is real (`--accept-shrink`): the snapshot is complete and the new baseline. */
  shrink_accepted?: true;
}

export interface RecordChanges {
  added: number;
  removed: number;
  changed: number;
}

export class ManifestError extends Error {
  override name = 'ManifestError';
  readonly code = 'ERR_MANIFEST';
}

/** Why a manifest says `incomplete`, in words: the resources whose count check failed, and those that shrank. */
export function whyIncomplete(manifest: Manifest): string {
  const mismatches = Object.entries(manifest.resources).flatMap(([resource, summary]) =>
    summary?.check === 'mismatch'
      ? [
          `${resource}: count check mismatch (exported ${summary.exported}, counted ${summary.count_before} before and ${summary.count_after} after)`,
        ]
      : [],
  );
  const shrinks = (manifest.suspicious_shrink ?? []).map(
    ({ resource, previous, current }) => `${resource}: suspicious shrink (${previous} → ${current} records)`,
  );
  return [...mismatches, ...shrinks].join('; ') || 'no reason recorded';
}

export function serializeManifest(manifest: Manifest): Uint8Array {
  return Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`);
}

/** Parses and checks the parts of a manifest that verify relies on; `where` names its location in errors. */
export function parseManifest(text: string, where: string): Manifest {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ManifestError(`${where} is not valid JSON`, { cause: error });
  }
  const manifest = value as Partial<Manifest>;
  if (manifest?.format !== MANIFEST_FORMAT) {
    throw new ManifestError(`${where} is not a ${MANIFEST_FORMAT} manifest`);
  }
  const badFile = (manifest.files ?? []).find(
    (file) =>
      typeof file?.path !== 'string' ||
      typeof file.sha256 !== 'string' ||
      !Number.isInteger(file.rows) ||
      !Number.isInteger(file.bytes) ||
      !['parquet', 'ndjson', 'raw', 'index'].includes(file.format),
  );
  if (!Array.isArray(manifest.files) || badFile !== undefined) {
    throw new ManifestError(`${where} has a malformed files list`);
  }
  return manifest as Manifest;
}
