import { join } from 'node:path';
import { count, duration, plural, textTable } from '../human.js';
import { writeFileDurably } from '../local-file.js';
import { stringifyJson } from '../shopify/json.js';
import { RESOURCES, type ResourceName } from '../shopify/resources.js';
import type { ExecuteResult, Failure, ResourceOutcome } from './execute.js';
import { PLAN_CLASSES, type Plan, type PlanClass, type PlanRow, type RestoreMode } from './plan.js';
import type { Unrestorable } from './records/restorable.js';
import type { Verification } from './verify.js';

/** What the requests of a restore are and what they take at the shop's bucket. */
export interface Estimate {
  /** Writes the plan sends, reads that verify them (one per record written, the customers' orders, the counts). */
  writes: number;
  reads: number;
  /** The bucket the crawl of the target saw: its size and leak (requests a second), undefined when it showed none. */
  bucket: { size: number | undefined; leakPerSecond: number | undefined };
  /** Seconds those requests take at least at that bucket (its room first, then its leak); undefined without a limit. */
  seconds: number | undefined;
}

/**
 * The restore's report (`shopsnap.restore-report/v1`), written to the state folder after every run that writes (its
 * path is stdout's last line) and printed whole with --json. A `--plan` run prints the same object, status
 * `planned`, without its results, and writes nothing.
 */
export interface RestoreReport {
  format: 'shopsnap.restore-report/v1';
  /** complete: every planned record restored and verified; partial: some could not be (listed); planned; declined. */
  status: 'complete' | 'partial' | 'planned' | 'declined';
  mode: RestoreMode;
  source: { location: string; shop: string; snapshot_id: string; incomplete?: string };
  target: string;
  started_at: string;
  finished_at: string;
  resources: Partial<Record<ResourceName, ResourceReport>>;
  /** Every record the plan decided about, and why (create, unchanged, update with its field diff, skip, conflict). */
  rows: PlanRow[];
  prune: Array<{ resource: ResourceName; target_id: string }>;
  side_effects: string[];
  cannot_restore: Partial<Record<ResourceName, readonly Unrestorable[]>>;
  estimate: Estimate;
  failures: Failure[];
  verification?: Verification;
  /** Requests sent: the crawl of the target (and the product markers the plan read), the writes (retries included), the verification. */
  requests?: { index: number; writes: number; verify: number };
  /** Seconds each stage took: reading the target (and the snapshot for the plan), writing, reading back. */
  seconds?: { plan: number; write: number; verify: number };
  state: { folder: string; journal: string; id_map?: string; activation_urls?: string };
}

export interface ResourceReport {
  planned: Record<PlanClass, number>;
  states: Record<'cancel' | 'close' | 'open', number>;
  prune: number;
  result?: ResourceOutcome;
  count_before?: number;
  count_after?: number;
  /**
   * The count before with this run's creates added and its deletes taken away: a count after that differs says the
   * shop made or removed records restore did not write (another app or person meanwhile, or the shop itself).
   */
  count_expected?: number;
}

/** Rows of each class shown on a terminal; --json and the report file hold them all. */
const ROWS_SHOWN = 5;

export function resourceReports(
  plan: Plan,
  result: ExecuteResult | undefined,
  verification: Verification | undefined,
): Partial<Record<ResourceName, ResourceReport>> {
  const reports: Partial<Record<ResourceName, ResourceReport>> = {};
  for (const resource of RESOURCES) {
    const resourcePlan = plan.resources[resource];
    if (resourcePlan === undefined) continue;
    const outcome = result?.resources[resource];
    const before = verification?.counts.before[resource];
    const after = verification?.counts.after[resource];
    reports[resource] = {
      planned: resourcePlan.counts,
      states: resourcePlan.states,
      prune: resourcePlan.prune.length,
      ...(outcome === undefined ? {} : { result: outcome }),
      ...(before === undefined ? {} : { count_before: before }),
      ...(after === undefined ? {} : { count_after: after }),
      ...(before === undefined || outcome === undefined
        ? {}
        : { count_expected: before + outcome.created - outcome.deleted }),
    };
  }
  return reports;
}

/** The plan as a person reads it: counts per resource, the first rows of each class, effects, limits, requests. */
export function planText(report: RestoreReport, target: string): string {
  const lines = [
    `restore ${report.source.location} into ${target} (${report.mode}${report.mode === 'recover' ? ': the shop the snapshot was taken of' : ''})`,
  ];
  if (report.source.incomplete !== undefined) {
    lines.push(`warning: the snapshot is incomplete (${report.source.incomplete})`);
  }
  const table = [['', ...PLAN_CLASSES, 'states', 'delete']];
  for (const [resource, plan] of Object.entries(report.resources)) {
    const states = Object.entries(plan.states)
      .filter(([, n]) => n > 0)
      .map(([step, n]) => `${step} ${n}`)
      .join(', ');
    table.push([resource, ...PLAN_CLASSES.map((c) => count(plan.planned[c])), states || '-', count(plan.prune)]);
  }
  lines.push(textTable(table, new Set([1, 2, 3, 4, 5, 7])));
  for (const cls of PLAN_CLASSES.filter((c) => c !== 'unchanged')) {
    const rows = report.rows.filter((row) => row.class === cls);
    if (rows.length === 0) continue;
    lines.push(
      `${cls} (${count(rows.length)}${rows.length > ROWS_SHOWN ? `, first ${ROWS_SHOWN}; --json lists all` : ''}):`,
    );
    for (const row of rows.slice(0, ROWS_SHOWN)) lines.push(`  ${rowText(row)}`);
  }
  if (report.prune.length > 0) {
    lines.push(`delete (${count(report.prune.length)}, --prune):`);
    for (const row of report.prune.slice(0, ROWS_SHOWN)) lines.push(`  ${row.resource} ${row.target_id}`);
  }
  lines.push('side effects:', ...report.side_effects.map((effect) => `  ${effect}`));
  lines.push(
    'cannot be restored:',
    ...Object.entries(report.cannot_restore).map(
      ([resource, fields]) => `  ${resource}: ${fields.map((field) => field.field).join(', ')}`,
    ),
    '  (each with its reason in the report and with --json)',
  );
  lines.push(estimateText(report.estimate));
  return lines.join('\n');
}

function rowText(row: PlanRow): string {
  const target =
    row.target_id === undefined ? '' : ` → ${row.target_id}${row.matched_by ? ` (by ${row.matched_by})` : ''}`;
  const changes =
    row.changes === undefined || row.changes.length === 0
      ? ''
      : `: ${row.changes
          .slice(0, 4)
          .map((change) => change.path)
          .join(', ')}${row.changes.length > 4 ? ', …' : ''}`;
  const states = row.states === undefined ? '' : ` then ${row.states.join(', ')}`;
  const reason = row.reason === undefined ? '' : ` — ${row.reason}`;
  return `${row.resource} ${row.id}${target}${changes}${states}${reason}`;
}

function estimateText(estimate: Estimate): string {
  const requests = `${plural(estimate.writes, 'write')} and ${plural(estimate.reads, 'read')} to verify them`;
  const { size, leakPerSecond } = estimate.bucket;
  if (estimate.seconds === undefined || size === undefined || leakPerSecond === undefined) {
    return `requests: ${requests}; the shop showed no rate limit`;
  }
  return `requests: ${requests}; at least ${duration(estimate.seconds)} at the shop's bucket (${count(size)} requests, ${leakPerSecond} a second)`;
}

/** What the restore did, for a person: per resource, then failures and differences, then where the state is. */
export function resultText(report: RestoreReport): string {
  const lines: string[] = [];
  for (const [resource, entry] of Object.entries(report.resources)) {
    const r = entry.result;
    if (r === undefined) continue;
    const states = Object.entries(r.states)
      .filter(([, n]) => n > 0)
      .map(([step, n]) => `${n} ${step === 'cancel' ? 'cancelled' : step === 'close' ? 'closed' : 'reopened'}`);
    const parts = [
      `${count(r.created)} created`,
      `${count(r.updated)} updated`,
      `${count(entry.planned.unchanged)} unchanged`,
      ...(r.found > 0 ? [`${count(r.found)} found after a lost answer`] : []),
      ...(r.matched > 0 ? [`${count(r.matched)} matched while writing`] : []),
      ...states,
      ...(r.deleted > 0 ? [`${count(r.deleted)} deleted`] : []),
      `${count(r.failed)} failed`,
    ];
    const after = entry.count_after ?? 0;
    const unexplained =
      entry.count_expected === undefined || entry.count_expected === after
        ? ''
        : ` (${count(entry.count_expected)} expected: ${count(Math.abs(after - entry.count_expected))} ${after > entry.count_expected ? 'made' : 'removed'} by another writer or the shop itself)`;
    const counts =
      entry.count_before === undefined ? '' : `; count ${count(entry.count_before)} → ${count(after)}${unexplained}`;
    lines.push(`${resource.padEnd(10)} ${parts.join(', ')}${counts}`);
  }
  for (const failure of report.failures) {
    lines.push(`failed     ${failure.resource} ${failure.id} (${failure.step}): ${failure.message}`);
  }
  const verification = report.verification;
  if (verification !== undefined) {
    const checked = Object.values(verification.resources).reduce((sum, r) => sum + r.checked, 0);
    lines.push(
      `verified   ${plural(checked, 'record')} read back: ${plural(verification.differences.length, 'difference')}; ${plural(verification.customerOrders.checked, "customer's orders", "customers' orders")} listed, ${count(verification.customerOrders.missing.length)} missing some`,
    );
    for (const difference of verification.differences.slice(0, 20)) {
      const what = difference.gone ? 'gone' : difference.fields.map((field) => field.path).join(', ');
      lines.push(`differs    ${difference.resource} ${difference.id} → ${difference.target_id}: ${what}`);
    }
  }
  return lines.join('\n');
}

/** Writes the report into the state folder whole and returns its path: `report-<start>.json`, one per run. */
export async function saveReport(folder: string, report: RestoreReport): Promise<string> {
  const stamp = report.started_at.replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
  const path = join(folder, `report-${stamp}.json`);
  await writeFileDurably(path, `${stringifyJson(report)}\n`);
  return path;
}
