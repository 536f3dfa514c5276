import type { SnapshotEntry } from './catalog.js';
import { snapshotTime } from './snapshot-id.js';

/** What a shop keeps (restic's `forget --keep-within … --keep-last …`, with the guards below). */
export interface RetentionPolicy {
  /** Snapshots started longer ago than this go. */
  keepWithinMs: number;
  /** The newest this many complete snapshots stay, however old. */
  keepLast: number;
  /** An unfinished snapshot younger than this may still be resumed (see runner/resume.ts). */
  resumeMaxAgeMs: number;
}

/** Whether a run of the shop is alive (its lease not expired) and which snapshot its checkpoint names. */
export interface ShopRunState {
  leaseLive: boolean;
  checkpointSnapshot?: string | undefined;
}

export interface RetentionDecision {
  entry: SnapshotEntry;
  remove: boolean;
  reason: string;
}

export interface RetentionPlan {
  /** Why no snapshot with a manifest goes: the shop has no complete snapshot within the window. */
  hold?: string;
  decisions: RetentionDecision[];
}

/**
 * Which snapshots of one shop go (`entries` oldest first, as the catalog lists them). Snapshots with a manifest go
 * when they started before the window, except the newest `keepLast` complete ones, and none at all while the newest
 * complete snapshot is itself older than the window: backups that keep failing must not eat the last good one. An
 * unfinished snapshot (no manifest: nothing reads it) goes once it can no longer be resumed, unless a live run's
 * checkpoint names it.
 */
export function planRetention(
  entries: readonly SnapshotEntry[],
  policy: RetentionPolicy,
  run: ShopRunState,
  now: number,
): RetentionPlan {
  const age = (entry: SnapshotEntry) => now - snapshotTime(entry.id);
  const complete = entries.filter((entry) => entry.state === 'complete');
  const newest = complete.at(-1);
  const kept = new Set(policy.keepLast > 0 ? complete.slice(-policy.keepLast) : []);
  const window = describeDuration(policy.keepWithinMs);
  const hold =
    newest === undefined
      ? 'no complete snapshot yet'
      : age(newest) > policy.keepWithinMs
        ? `the newest complete snapshot (${newest.id}) is older than ${window}`
        : undefined;
  const decisions = entries.map((entry): RetentionDecision => {
    if (entry.state === 'unfinished') {
      if (age(entry) <= policy.resumeMaxAgeMs) {
        return {
          entry,
          remove: false,
          reason: `unfinished, may still be resumed (started within ${describeDuration(policy.resumeMaxAgeMs)})`,
        };
      }
      if (run.leaseLive && run.checkpointSnapshot === entry.id) {
        return { entry, remove: false, reason: 'unfinished, a live run is on it' };
      }
      return {
        entry,
        remove: true,
        reason: `abandoned: unfinished, started more than ${describeDuration(policy.resumeMaxAgeMs)} ago`,
      };
    }
    if (hold !== undefined) return { entry, remove: false, reason: hold };
    if (kept.has(entry)) {
      const reason =
        policy.keepLast === 1 ? 'the newest complete snapshot' : `one of the newest ${policy.keepLast} complete`;
      return { entry, remove: false, reason };
    }
    if (age(entry) <= policy.keepWithinMs) return { entry, remove: false, reason: `within ${window}` };
    return { entry, remove: true, reason: `older than ${window}` };
  });
  return { ...(hold === undefined ? {} : { hold }), decisions };
}

const HOUR_MS = 60 * 60_000;
export const DAY_MS = 24 * HOUR_MS;

/** `35d` or `12h` in ms; undefined for anything else. */
export function parseDuration(text: string): number | undefined {
  const match = /^(\d{1,6})([dh])$/.exec(text.trim());
  if (match === null) return undefined;
  const value = Number(match[1]) * (match[2] === 'd' ? DAY_MS : HOUR_MS);
  return value > 0 ? value : undefined;
}

/** `35 days`, `1 day`, `12 h`. */
export function describeDuration(ms: number): string {
  if (ms % DAY_MS === 0) return ms === DAY_MS ? '1 day' : `${ms / DAY_MS} days`;
  return `${Math.round(ms / HOUR_MS)} h`;
}
