import type { CountCheck } from './manifest.js';

/**
 * `ok` when every record counted before and after the crawl was exported; `drift` when the shop's count moved while
 * it was crawled (the export is a fuzzy snapshot of a moving shop); `mismatch` when the counts held still but the
 * export differs — records were lost or invented.
 */
export function checkCounts(counts: { before: number; after: number; exported: number }): CountCheck {
  if (counts.before !== counts.after) return 'drift';
  return counts.exported === counts.before ? 'ok' : 'mismatch';
}
