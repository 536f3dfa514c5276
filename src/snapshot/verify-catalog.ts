import { type Catalog, listSnapshots, type SnapshotEntry } from './catalog.js';
import { type VerifyReport, verifyPassed, verifySnapshot } from './verify.js';

/**
 * What verify says of one snapshot: `ok` (complete, every file matches), `failed` (a file missing, extra or
 * differing), `incomplete` (every file matches, but the manifest says incomplete), `unfinished` (no manifest: not a
 * snapshot) or `damaged` (a manifest that cannot be read).
 */
export type Verdict = 'ok' | 'failed' | 'incomplete' | 'unfinished' | 'damaged';

export interface SnapshotVerdict {
  entry: SnapshotEntry;
  verdict: Verdict;
  /** The files re-read against the manifest: present when there is a readable manifest. */
  report?: VerifyReport;
}

/**
 * Verifies every snapshot in the catalog's scope, one after another, each yielded when done. Snapshots with a manifest
 * have every file re-read, incomplete ones too (they are kept, and damage to them is damage); those without a manifest
 * or with an unreadable one are reported as such, never verified as if complete.
 */
export async function* verifyCatalog(catalog: Catalog): AsyncGenerator<SnapshotVerdict> {
  for (const entry of await listSnapshots(catalog)) {
    if (entry.manifest === undefined) {
      yield { entry, verdict: entry.state === 'damaged' ? 'damaged' : 'unfinished' };
      continue;
    }
    const report = await verifySnapshot(catalog.storage, entry.key, entry.manifest);
    const verdict = !verifyPassed(report) ? 'failed' : entry.state === 'complete' ? 'ok' : 'incomplete';
    yield { entry, verdict, report };
  }
}
