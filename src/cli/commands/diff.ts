import { type FileHandle, open, rename, rm } from 'node:fs/promises';
import { count, textTable } from '../../human.js';
import { writeError } from '../../local-file.js';
import { stringifyJson } from '../../shopify/json.js';
import { tempPathFor } from '../../sink/gzip-part-file.js';
import { completeSnapshots, listSnapshots, openCatalog } from '../../snapshot/catalog.js';
import { type DiffDetail, diffSnapshots, type SnapshotDiff, type SnapshotRef } from '../../snapshot/diff.js';
import type { S3Settings } from '../../storage/index.js';
import { defineCommand } from '../command.js';
import { flag } from '../flags.js';
import { S3_READ_FLAGS, s3SettingsFrom } from '../s3-flags.js';
import { UsageError } from '../usage-error.js';

export const diffCommand = defineCommand({
  name: 'diff',
  describe: 'What changed between two snapshots of a shop: records added, removed and changed, per resource',
  positionals: { before: 'The earlier snapshot, or a shop folder (its last two complete snapshots); a path or s3://' },
  optionalPositionals: { after: 'The later snapshot' },
  flags: {
    details: flag.string({
      describe: 'Write one NDJSON line per added, removed or changed record to this file, with the changed fields',
    }),
    ...S3_READ_FLAGS,
  },
  examples: [
    ['The last two complete snapshots of a shop', '$0 diff ./snapshots/my-shop.myshopify.com'],
    [
      'Two snapshots, every changed field into a file',
      '$0 diff ./snapshots/my-shop.myshopify.com/20261121T050611954Z ./snapshots/my-shop.myshopify.com/20261122T050623123Z --details changes.ndjson',
    ],
  ],
  run: async (args) => {
    const s3 = s3SettingsFrom(args);
    const [before, after] =
      args.after === undefined
        ? await lastTwoComplete(args.before, s3)
        : [await snapshotAt(args.before, s3), await snapshotAt(args.after, s3)];
    if (before.manifest.shop !== after.manifest.shop) {
      throw new UsageError(
        `${args.before} is a snapshot of ${before.manifest.shop}, ${args.after} of ${after.manifest.shop}: diff compares two snapshots of one shop`,
      );
    }
    const diff =
      args.details === undefined
        ? await diffSnapshots(before, after)
        : await withDetailsFile(args.details, (details) => diffSnapshots(before, after, details));
    if (args.json) process.stdout.write(`${JSON.stringify({ resources: diff.resources })}\n`);
    else process.stdout.write(diffTable(before, after, diff));
  },
});

/** A snapshot with a manifest (complete or incomplete) at a location naming one. */
async function snapshotAt(location: string, s3: S3Settings): Promise<SnapshotRef> {
  const catalog = await openCatalog(location, s3);
  if (catalog.scope.kind !== 'snapshot') {
    throw new UsageError(`${location} is not a snapshot; name two snapshots, or one shop folder`);
  }
  const [entry] = await listSnapshots(catalog);
  if (entry?.manifest === undefined) {
    const why = entry === undefined ? 'nothing is there' : (entry.problem ?? 'it has no manifest.json: unfinished');
    throw new UsageError(`${location} is no snapshot to compare: ${why}`);
  }
  return { storage: catalog.storage, key: entry.key, manifest: entry.manifest };
}

async function lastTwoComplete(location: string, s3: S3Settings): Promise<[SnapshotRef, SnapshotRef]> {
  const catalog = await openCatalog(location, s3);
  if (catalog.scope.kind !== 'shop') {
    throw new UsageError(`${location} is not a shop folder; name one (<out>/<shop>), or two snapshots`);
  }
  const complete = completeSnapshots(await listSnapshots(catalog));
  const [before, after] = complete.slice(-2);
  if (before === undefined || after === undefined) {
    throw new UsageError(`${location} holds ${complete.length} complete snapshot(s); diff needs two`);
  }
  const ref = (entry: typeof before): SnapshotRef => ({
    storage: catalog.storage,
    key: entry.key,
    manifest: entry.manifest,
  });
  return [ref(before), ref(after)];
}

/** Bytes of NDJSON gathered before each write. */
const DETAILS_BUFFER_BYTES = 256 * 1024;

/** Writes the details to a temp file renamed into place once the diff is done: a failed diff leaves no file. */
async function withDetailsFile<T>(
  path: string,
  work: (details: (detail: DiffDetail) => Promise<void>) => Promise<T>,
): Promise<T> {
  const temp = tempPathFor(path);
  // Errors of the file itself name the file the user gave (the temp name means nothing to them).
  const writing = async <R>(step: () => Promise<R>): Promise<R> => {
    try {
      return await step();
    } catch (error) {
      throw writeError(error, path);
    }
  };
  const file: FileHandle = await writing(() => open(temp, 'wx'));
  let pending: string[] = [];
  let pendingBytes = 0;
  const flush = async () => {
    const text = pending.join('');
    pending = [];
    pendingBytes = 0;
    await writing(() => file.write(text));
  };
  try {
    const result = await work(async (detail) => {
      const line = `${stringifyJson(detail)}\n`;
      pending.push(line);
      pendingBytes += line.length;
      if (pendingBytes >= DETAILS_BUFFER_BYTES) await flush();
    });
    await flush();
    await writing(() => file.close());
    await writing(() => rename(temp, path));
    return result;
  } catch (error) {
    await file.close().catch(() => undefined);
    await rm(temp, { force: true });
    throw error;
  }
}

function diffTable(before: SnapshotRef, after: SnapshotRef, diff: SnapshotDiff): string {
  const rows = [
    ['resource', 'added', 'removed', 'changed', 'unchanged'],
    ...Object.entries(diff.resources).map(([resource, c]) => [
      resource,
      ...[c.added, c.removed, c.changed, c.unchanged].map(count),
    ]),
  ];
  const notes = [
    ...diff.onlyBefore.map((resource) => `${resource}: only in ${before.manifest.snapshot_id}, not compared`),
    ...diff.onlyAfter.map((resource) => `${resource}: only in ${after.manifest.snapshot_id}, not compared`),
  ];
  const where = (snapshot: SnapshotRef) => `${snapshot.storage.location}/${snapshot.key}`;
  const sameFolder = before.storage.location === after.storage.location;
  const lines = [
    sameFolder
      ? `${before.storage.location}/${before.manifest.shop}: ${before.manifest.snapshot_id} → ${after.manifest.snapshot_id}`
      : `${where(before)} → ${where(after)}`,
    textTable(rows, new Set([1, 2, 3, 4])),
    ...notes,
  ];
  return `${lines.join('\n')}\n`;
}
