import type { CountCheck } from './manifest.js';

/** What a resource's crawl saw of the shop: its counts before and after, the records exported, and change. */
export interface CountEvidence {
  before: number;
  after: number;
  exported: number;
  /** Records seen created or updated at or after the crawl began (see changeWindowStart). */
  changed: number;
}

/**
 * `ok` when every record counted before and after the crawl was exported. `drift` when the shop changed while it was
 * crawled: its count moved, or records were created or updated meanwhile (a create and a delete leave the count where
 * it was, and the export is a fuzzy snapshot of a moving shop). `mismatch` only when the shop held still and the export
 * still differs: records were lost or invented.
 */
export function checkCounts(evidence: CountEvidence): CountCheck {
  if (evidence.before !== evidence.after) return 'drift';
  if (evidence.exported === evidence.before) return 'ok';
  return evidence.changed > 0 ? 'drift' : 'mismatch';
}

/**
 * Whether the verdict hinges on change the exported records did not show: then one count of the records updated since
 * the crawl began decides (a record created after its place was crawled is in no page, a deleted one in none after).
 */
export function needsChangeCount(evidence: CountEvidence): boolean {
  return evidence.before === evidence.after && evidence.exported !== evidence.before && evidence.changed === 0;
}

/**
 * The shop stamps records with its own clock: change is looked for from a minute before the snapshot began, so a
 * clock of ours that runs ahead of the shop's hides no change made during the crawl. The cost: a change in that minute
 * makes a mismatch `drift`.
 */
export const CLOCK_MARGIN_MS = 60_000;

/** Where changes are looked for: the snapshot's start (its first attempt's, when resumed) less the margin, in whole seconds. */
export function changeWindowStart(startedAt: string): Date {
  return new Date(Math.floor((Date.parse(startedAt) - CLOCK_MARGIN_MS) / 1000) * 1000);
}
