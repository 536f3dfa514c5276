import type { FleetSummary } from '../runner/run-job.js';
import { readObjectText, type Storage } from '../storage/storage.js';

/** `fleet-summary.json`, or a shard's `fleet-summary.shard-i-of-n.json`, as `shopsnap run` writes them (run-job.ts). */
const SUMMARY_KEY = /^fleet-summary(\.shard-\d+-of-\d+)?\.json$/;

export interface StoredSummary {
  key: string;
  summary: FleetSummary;
}

/**
 * The fleet summaries at a destination's root, oldest run first. Each run overwrites its shard's, so together they say
 * how every shop's last run by a job went, failures included (a failed shop may have left no snapshot folder at all).
 * One that cannot be read is passed over with `onProblem`: the snapshots themselves are the record.
 */
export async function readFleetSummaries(
  storage: Storage,
  onProblem: (problem: string) => void,
): Promise<StoredSummary[]> {
  const keys: string[] = [];
  for await (const object of storage.list('')) if (SUMMARY_KEY.test(object.key)) keys.push(object.key);
  const found: StoredSummary[] = [];
  for (const key of keys.sort()) {
    try {
      const summary = JSON.parse(await readObjectText(storage, key)) as FleetSummary;
      if (!Array.isArray(summary?.shops) || typeof summary.finished_at !== 'string') throw new Error('not a summary');
      found.push({ key, summary });
    } catch (error) {
      onProblem(`${storage.location}/${key} cannot be read as a fleet summary (${(error as Error).message})`);
    }
  }
  return found.sort((a, b) => Date.parse(a.summary.finished_at) - Date.parse(b.summary.finished_at));
}
