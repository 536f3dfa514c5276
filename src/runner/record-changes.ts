import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '../log.js';
import type { ResourceName } from '../shopify/resources.js';
import type { ParquetConverter } from '../sink/parquet-converter.js';
import type { Manifest, ManifestFile, RecordChanges } from '../snapshot/manifest.js';
import { copyIndex, indexFilesOf } from '../snapshot/record-index.js';
import type { Storage } from '../storage/storage.js';

/**
 * What changed since the previous complete snapshot, per resource both snapshots hold an index of: the record indexes
 * are copied into `scratch` and compared by id and sha256 by the converter (DuckDB's memory stays in its process).
 * Undefined when there is nothing to compare against, or the comparison failed (the new snapshot is whole without it:
 * a damaged previous index costs only the record of changes, with a warning).
 */
export async function changesSincePrevious(options: {
  storage: Storage;
  previous: Manifest | undefined;
  /** `<shop>/<snapshot id>` of the snapshot being finished, and its files. */
  prefix: string;
  files: readonly ManifestFile[];
  resources: readonly ResourceName[];
  converter: ParquetConverter;
  scratch: string;
  logger: Logger;
}): Promise<Manifest['changes']> {
  const { storage, previous } = options;
  if (previous === undefined) return undefined;
  const counted: Partial<Record<ResourceName, RecordChanges>> = {};
  try {
    for (const resource of options.resources) {
      const before = indexFilesOf(previous.files, resource);
      const after = indexFilesOf(options.files, resource);
      if (before.length === 0 || after.length === 0 || previous.resources[resource] === undefined) continue;
      const { added, removed, changed } = await options.converter.countChanges(
        await copyIndex(
          storage,
          `${previous.shop}/${previous.snapshot_id}`,
          before,
          join(options.scratch, `${resource}-before`),
        ),
        await copyIndex(storage, options.prefix, after, join(options.scratch, `${resource}-after`)),
      );
      counted[resource] = { added, removed, changed };
    }
  } catch (error) {
    options.logger.warn({ previous: previous.snapshot_id, err: error }, 'changes not recorded: comparing failed');
    return undefined;
  } finally {
    await rm(options.scratch, { recursive: true, force: true });
  }
  if (Object.keys(counted).length === 0) {
    options.logger.info(
      { previous: previous.snapshot_id },
      'no changes recorded: the previous complete snapshot has no record index of these resources',
    );
    return undefined;
  }
  return { since: previous.snapshot_id, resources: counted };
}
