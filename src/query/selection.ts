import { UsageError } from '../cli/usage-error.js';
import { type Catalog, catalogLocation, completeSnapshots, type SnapshotEntry } from '../snapshot/catalog.js';
import type { Manifest } from '../snapshot/manifest.js';

/** Which snapshots the table views read: each shop's newest complete one, one by its id, or every complete one. */
export type Selection = { kind: 'latest' } | { kind: 'snapshot'; id: string } | { kind: 'all' };

export type SelectedSnapshot = SnapshotEntry & { manifest: Manifest };

export interface Selected {
  snapshots: SelectedSnapshot[];
  /** What the selection left out that a reader would expect in, in words (warnings on stderr). */
  notes: string[];
}

/**
 * The snapshots a query reads, through their manifests (`entries` as the catalog lists them, by shop then id). A
 * location naming one snapshot reads it whatever its manifest's status; elsewhere only complete snapshots count, as
 * every reader of a destination must (README, Querying). `required`: finding none is an error.
 */
export function selectSnapshots(
  catalog: Catalog,
  entries: readonly SnapshotEntry[],
  selection: Selection,
  required: boolean,
): Selected {
  const where = catalogLocation(catalog);
  if (catalog.scope.kind === 'snapshot') {
    const [entry] = entries;
    if (entry?.manifest === undefined) {
      const why = entry === undefined ? 'nothing is there' : (entry.problem ?? 'it has no manifest.json: unfinished');
      throw new UsageError(`${where} is no snapshot to query: ${why}`);
    }
    if (selection.kind === 'snapshot' && selection.id !== entry.id) {
      throw new UsageError(`--snapshot ${selection.id} names another snapshot than ${where}`);
    }
    const notes =
      entry.state === 'complete' ? [] : [`${entry.shop}/${entry.id} is ${entry.state}: its manifest says so`];
    return { snapshots: [entry as SelectedSnapshot], notes };
  }
  const complete = completeSnapshots(entries);
  const shops = [...new Set(entries.map((entry) => entry.shop))];
  let snapshots: SelectedSnapshot[];
  const notes: string[] = [];
  if (selection.kind === 'snapshot') {
    snapshots = entries.filter(
      (entry): entry is SelectedSnapshot => entry.id === selection.id && entry.manifest !== undefined,
    );
    if (snapshots.length === 0) throw new UsageError(`no snapshot ${selection.id} with a manifest under ${where}`);
    for (const entry of snapshots) {
      if (entry.state !== 'complete') notes.push(`${entry.shop}/${entry.id} is ${entry.state}: its manifest says so`);
    }
  } else if (selection.kind === 'all') {
    snapshots = complete;
  } else {
    snapshots = shops.flatMap((shop) => complete.filter((entry) => entry.shop === shop).slice(-1));
  }
  if (selection.kind !== 'snapshot') {
    const without = shops.filter((shop) => !complete.some((entry) => entry.shop === shop));
    if (without.length > 0) notes.push(`no complete snapshot of ${without.join(', ')}: not in the views`);
  }
  if (required && snapshots.length === 0) throw new UsageError(`no complete snapshot under ${where}`);
  return { snapshots, notes };
}
