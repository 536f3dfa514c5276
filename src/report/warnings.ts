import { count } from '../human.js';
import type { SnapshotEntry } from '../snapshot/catalog.js';
import type { SnapshotPoint } from './shop-report.js';

/**
 * What a person responsible for the backups should look at. `failure`: the shop's backups are not working now (its
 * last run did not complete, or no complete snapshot is recent); `warning`: trouble since followed by good runs, or a
 * loss accepted as real; `notice`: what is normal on a live shop but worth knowing (its counts moved during a crawl).
 */
export interface Warning {
  severity: 'failure' | 'warning' | 'notice';
  kind:
    | 'failed_run'
    | 'unfinished_run'
    | 'abandoned_run'
    | 'mismatch'
    | 'suspicious_shrink'
    | 'shrink_accepted'
    | 'damaged'
    | 'drift'
    | 'no_recent_complete';
  /** The snapshot it is about, where there is one. */
  snapshot_id: string | null;
  message: string;
}

/** The warnings one snapshot folder gives; `last`: it is the shop's last run, whose trouble fails the shop. */
export function snapshotWarnings(point: SnapshotPoint, entry: SnapshotEntry, last: boolean): Warning[] {
  const trouble = last ? 'failure' : 'warning';
  const at = (severity: Warning['severity'], kind: Warning['kind'], message: string): Warning => ({
    severity,
    kind,
    snapshot_id: point.snapshot_id,
    message,
  });
  switch (point.status) {
    case 'running':
      return [];
    case 'unfinished':
      return [
        at(trouble, 'unfinished_run', 'the run did not finish (it failed or was killed): the next run resumes it'),
      ];
    case 'abandoned':
      return [
        at(
          'warning',
          'abandoned_run',
          'abandoned: the run did not finish and is too old to be resumed; shopsnap prune removes its parts',
        ),
      ];
    case 'damaged':
      return [at(trouble, 'damaged', `its manifest cannot be read: ${entry.problem ?? 'no reason recorded'}`)];
    default:
      break;
  }
  const warnings: Warning[] = [];
  for (const [resource, summary] of Object.entries(point.resources)) {
    const counted = `exported ${count(summary.exported)}, counted ${count(summary.count_before)} before and ${count(summary.count_after)} after`;
    if (summary.check === 'mismatch') {
      warnings.push(at(trouble, 'mismatch', `${resource}: count mismatch while the shop held still (${counted})`));
    } else if (summary.check === 'drift') {
      warnings.push(at('notice', 'drift', `${resource}: the shop changed during the crawl (${counted})`));
    }
  }
  for (const shrink of entry.manifest?.suspicious_shrink ?? []) {
    const what = `${shrink.resource}: ${count(shrink.removed)} of ${count(shrink.previous)} records gone since the last complete snapshot (${count(shrink.current)} now)`;
    warnings.push(
      entry.manifest?.shrink_accepted
        ? at('warning', 'shrink_accepted', `${what}, accepted as real (--accept-shrink)`)
        : at(trouble, 'suspicious_shrink', `${what}: a suspicious shrink, not taken as the baseline`),
    );
  }
  return warnings;
}
