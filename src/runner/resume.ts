import type { Logger } from '../log.js';
import { API_VERSION, type ResourceName } from '../shopify/resources.js';
import { CHECKPOINT_FORMAT, type Checkpoint, checkpointKey, readCheckpoint } from '../snapshot/checkpoint.js';
import { MANIFEST_NAME } from '../snapshot/manifest.js';
import { newSnapshotId } from '../snapshot/snapshot-id.js';
import type { Storage } from '../storage/storage.js';
import { SCHEMA_VERSION } from '../transform/index.js';
import type { OutputFormat } from './output-format.js';

export const DEFAULT_RESUME_MAX_AGE_MS = 24 * 60 * 60_000;

interface ResumeRequest {
  storage: Storage;
  shop: { key: string };
  resources: readonly ResourceName[];
  formats: readonly OutputFormat[];
  fresh?: boolean | undefined;
  resumeMaxAgeMs?: number | undefined;
  now: Date;
  logger: Logger;
}

/**
 * The checkpoint this run works under: the shop's unfinished snapshot when it can be resumed, else a new snapshot's
 * first checkpoint. An unfinished snapshot that is not resumed (too old, asked for other resources or formats,
 * `fresh`) is removed. The committer writes the checkpoint before the first file it uploads, so every unfinished
 * snapshot with data can be found again, and a run that fails before uploading anything leaves nothing behind.
 */
export async function openCheckpoint(request: ResumeRequest): Promise<Checkpoint> {
  const { storage, logger } = request;
  const found = await readCheckpoint(storage, request.shop.key);
  if (found !== undefined) {
    const finished = (await storage.head(`${request.shop.key}/${found.snapshot_id}/${MANIFEST_NAME}`)) !== undefined;
    const obstacle = finished ? 'it is finished' : resumeObstacle(found, request);
    if (obstacle === undefined) {
      const resumed: Checkpoint = {
        ...found,
        attempts: found.attempts + 1,
        earlier_requests: found.earlier_requests + found.attempt_requests,
        attempt_requests: 0,
      };
      logger.info(
        { snapshot: found.snapshot_id, earlier_requests: resumed.earlier_requests },
        'resuming unfinished snapshot',
      );
      // A killed run may have uploaded parts after its last checkpoint, several of a table when parts were finished
      // ahead of it; the resumed run need not write as many again, and whatever it does not overwrite must not stay.
      const prefix = `${request.shop.key}/${found.snapshot_id}/`;
      const listed = Object.values(found.resources).flatMap((progress) => progress?.files ?? []);
      await removeUnfinished(storage, prefix, logger, new Set(listed.map((file) => `${prefix}${file.path}`)));
      return resumed;
    }
    logger.info({ snapshot: found.snapshot_id, reason: obstacle }, 'not resuming earlier snapshot');
    // The checkpoint goes first: once the data is being removed, nothing may point a later run at it.
    await storage.delete(checkpointKey(request.shop.key));
    if (!finished) await removeUnfinished(storage, `${request.shop.key}/${found.snapshot_id}/`, logger);
  }
  return {
    format: CHECKPOINT_FORMAT,
    shop: request.shop.key,
    snapshot_id: newSnapshotId(request.now),
    api_version: API_VERSION,
    schema_version: SCHEMA_VERSION,
    started_at: request.now.toISOString(),
    updated_at: request.now.toISOString(),
    requested: { resources: [...request.resources], formats: [...request.formats] },
    attempts: 0,
    earlier_requests: 0,
    attempt_requests: 0,
    resources: {},
  };
}

/** Why `found` cannot be resumed by this request, or undefined when it can. */
export function resumeObstacle(
  found: Checkpoint,
  request: Pick<ResumeRequest, 'resources' | 'formats' | 'fresh' | 'resumeMaxAgeMs' | 'now'>,
): string | undefined {
  const maxAge = request.resumeMaxAgeMs ?? DEFAULT_RESUME_MAX_AGE_MS;
  const age = request.now.getTime() - Date.parse(found.started_at);
  if (request.fresh) return 'a fresh snapshot was asked for';
  if (!(age <= maxAge)) return `it was started ${found.started_at}, longer ago than the resume limit`;
  if (found.api_version !== API_VERSION || found.schema_version !== SCHEMA_VERSION) {
    return 'it was written with another API or schema version';
  }
  const same = (a: readonly string[], b: readonly string[]) => [...a].sort().join() === [...b].sort().join();
  if (!same(found.requested.resources, request.resources) || !same(found.requested.formats, request.formats)) {
    return `it was asked for resources ${found.requested.resources} and formats ${found.requested.formats}`;
  }
  return undefined;
}

/**
 * Deletes what an unfinished snapshot uploaded, but `keep`: all of an abandoned one, or what a resumed one's checkpoint
 * does not list. It never had a manifest, so nothing reads it; a store that refuses deletes (a policy without
 * s3:DeleteObject) keeps it, with a warning: the lifecycle rule expires it.
 */
async function removeUnfinished(
  storage: Storage,
  prefix: string,
  logger: Logger,
  keep: ReadonlySet<string> = new Set(),
): Promise<void> {
  try {
    for await (const object of storage.list(prefix)) if (!keep.has(object.key)) await storage.delete(object.key);
  } catch (error) {
    logger.warn({ prefix, err: error }, 'could not remove the files of an unfinished snapshot');
  }
}

/** After the manifest: the snapshot is finished and its checkpoint only clutter. */
export async function discardCheckpoint(storage: Storage, shopKey: string, logger: Logger): Promise<void> {
  try {
    await storage.delete(checkpointKey(shopKey));
  } catch (error) {
    // Harmless if it stays: the next run sees that its snapshot has a manifest and starts a new one.
    logger.warn({ err: error }, 'could not remove the checkpoint of a finished snapshot');
  }
}
