import { count, duration, plural } from '../human.js';
import type { Logger } from '../log.js';
import type { ProgressBoard, ResourceView } from './progress-board.js';

/**
 * Every `intervalMs`, one line per resource still crawling (rclone's `--stats`): off a terminal the only sign of life
 * of a long crawl, and of a shop that accepts connections but never answers (requests unanswered, for how long).
 * Returns the stop function.
 */
export function logStatsEvery(board: ProgressBoard, logger: Logger, intervalMs: number): () => void {
  const timer = setInterval(() => {
    const { resources, bucket } = board.view();
    for (const view of resources) {
      if (view.state !== 'crawling') continue;
      logger.info(
        {
          resource: view.resource,
          records: view.records,
          expected: view.expected,
          pages: view.pages,
          rate: view.rate === undefined ? undefined : Math.round(view.rate),
          eta_s: view.etaSeconds === undefined ? undefined : Math.round(view.etaSeconds),
          retries: view.retries,
          unanswered: view.unanswered,
          oldest_unanswered_s:
            view.oldestUnansweredMs === undefined ? undefined : Math.round(view.oldestUnansweredMs / 1000),
          bucket: bucket === undefined ? undefined : `${bucket.used}/${bucket.max ?? '?'}`,
        },
        statsLine(view),
      );
    }
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}

/** `orders: 1,250 of 5,000 records (25%), 5 pages, 410/s, ETA 9 s, 2 retries; 3 requests unanswered, the oldest for 25 s` */
export function statsLine(view: ResourceView): string {
  const parts = [
    view.expected === undefined
      ? `${count(view.records)} records (count not known yet)`
      : `${count(view.records)} of ${count(view.expected)} records (${percent(view.records, view.expected)})`,
    plural(view.pages, 'page'),
  ];
  if (view.rate !== undefined) parts.push(`${count(view.rate)}/s`);
  if (view.etaSeconds !== undefined) parts.push(`ETA ${duration(view.etaSeconds)}`);
  if (view.retries > 0) parts.push(plural(view.retries, 'retry', 'retries'));
  let line = `${view.resource}: ${parts.join(', ')}`;
  if (waitingLong(view)) {
    const waited = duration((view.oldestUnansweredMs ?? 0) / 1000);
    line +=
      view.unanswered === 1
        ? `; 1 request unanswered for ${waited}`
        : `; ${view.unanswered} requests unanswered, the oldest for ${waited}`;
  }
  return line;
}

/** Whole percents, never 100% before the end: 4,999 of 5,000 is 99%. */
export function percent(part: number, whole: number): string {
  if (whole <= 0) return '100%';
  return `${Math.min(100, Math.floor((part * 100) / whole))}%`;
}

/** Requests in flight are normal; one unanswered for a second or more is worth showing (a shop that hangs). */
export function waitingLong(view: ResourceView): boolean {
  return view.oldestUnansweredMs !== undefined && view.oldestUnansweredMs >= 1000;
}
