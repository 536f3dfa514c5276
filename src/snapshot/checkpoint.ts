import { createHash } from 'node:crypto';
import type { ResourceName } from '../shopify/resources.js';
import type { CrawlResumeState } from '../source/index.js';
import { readObjectText, type Storage, StorageError } from '../storage/storage.js';
import type { ManifestFile, ResourceSummary } from './manifest.js';

export const CHECKPOINT_FORMAT = 'shopsnap.checkpoint/v1';
/** One per shop and destination, beside the lease: only the newest unfinished snapshot can be resumed. */
export const CHECKPOINT_NAME = 'checkpoint.json';

/** How far one resource of an unfinished snapshot got. Everything listed here is durable in storage. */
export interface ResourceProgress {
  done: boolean;
  /** Where the crawl stands; absent until the first checkpoint of the resource (it then starts over). */
  crawl?: CrawlResumeState;
  /** Set once done. */
  summary?: ResourceSummary;
  files: ManifestFile[];
  /** Number of the next part of each series of parts ('ndjson/orders', 'raw/orders'). */
  next_part: Record<string, number>;
  unknown_fields: number;
  /** Records handed over so far that were created or updated since the change window began (see count-check.ts). */
  changed_seen?: number;
}

/** The durable progress of an unfinished snapshot. Written only after the data it describes is committed. */
export interface Checkpoint {
  format: typeof CHECKPOINT_FORMAT;
  shop: string;
  snapshot_id: string;
  api_version: string;
  schema_version: number;
  started_at: string;
  updated_at: string;
  /** What the run was asked for; a run asked for something else does not resume this snapshot. */
  requested: { resources: ResourceName[]; formats: string[] };
  /** Runs that worked on this snapshot before the current one, and the requests they sent up to their last checkpoint. */
  attempts: number;
  earlier_requests: number;
  /** Requests the current run had sent when it wrote this checkpoint. */
  attempt_requests: number;
  resources: Partial<Record<ResourceName, ResourceProgress>>;
}

export function checkpointKey(shopKey: string): string {
  return `${shopKey}/${CHECKPOINT_NAME}`;
}

export async function writeCheckpoint(storage: Storage, checkpoint: Checkpoint): Promise<void> {
  const body = Buffer.from(JSON.stringify(checkpoint));
  await storage.putBytes(checkpointKey(checkpoint.shop), body, {
    sha256: createHash('sha256').update(body).digest('hex'),
  });
}

/**
 * The shop's checkpoint, or undefined when there is none. A checkpoint that cannot be read as one is treated as none
 * (the unfinished snapshot is then started over), never as a reason to fail the backup.
 */
export async function readCheckpoint(storage: Storage, shopKey: string): Promise<Checkpoint | undefined> {
  let text: string;
  try {
    text = await readObjectText(storage, checkpointKey(shopKey));
  } catch (error) {
    if (error instanceof StorageError && error.code === 'ERR_STORAGE_NOT_FOUND') return undefined;
    throw error;
  }
  try {
    const value = JSON.parse(text) as Partial<Checkpoint>;
    const valid =
      value.format === CHECKPOINT_FORMAT &&
      value.shop === shopKey &&
      typeof value.snapshot_id === 'string' &&
      typeof value.resources === 'object' &&
      value.resources !== null;
    return valid ? (value as Checkpoint) : undefined;
  } catch {
    return undefined;
  }
}
