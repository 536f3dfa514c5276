import { count } from '../human.js';
import type { CheckReport } from '../runner/check-report.js';
import { TIER_NAMES } from '../shopify/tiers.js';

/** `shopsnap check`'s readable answer: one aligned line per finding, the resources as a small table, a verdict last. */
export function formatCheckReport(report: CheckReport, shopArgument: string): string {
  const rows: Array<[string, string]> = [
    ['shop', report.shop],
    ['token', 'accepted'],
    [
      'scopes',
      report.scopes.missing.length === 0
        ? `${report.scopes.granted.join(', ')} (everything a backup needs)`
        : `MISSING ${report.scopes.missing.join(', ')} (granted: ${report.scopes.granted.join(', ') || 'none'})`,
    ],
    [
      'api version',
      `${report.api_version.requested} requested, ${report.api_version.answered ?? 'none named'} answered`,
    ],
    [
      'bucket',
      report.bucket.size === null
        ? 'none reported (no rate limit)'
        : `${report.bucket.size} requests: ${TIER_NAMES[report.bucket.tier]}, leaking ${report.bucket.leak_per_second}/s (a twentieth a second)`,
    ],
    ['round trip', roundTripText(report.round_trip_ms)],
  ];
  const lines = rows.map(([label, value]) => `${label.padEnd(LABEL)}${value}`);
  const resources = Object.entries(report.resources);
  const counts = resources.map(([, r]) => (r.records === null ? 'no scope' : r.records.toLocaleString('en-US')));
  const width = Math.max('records'.length, ...counts.map((c) => c.length));
  lines.push('', `${'resource'.padEnd(LABEL)}${'records'.padStart(width)}  filters`);
  resources.forEach(([name, r], i) => {
    const filters = Object.entries(r.filters).map(([key, value]) => `${key}=${value}`);
    lines.push(`${name.padEnd(LABEL)}${(counts[i] as string).padStart(width)}  ${filters.join('&') || '(none)'}`);
  });
  lines.push('');
  if (report.estimate === null) lines.push(`${'estimate'.padEnd(LABEL)}– (nothing the token may read)`);
  else {
    const { requests, duration_ms, depth } = report.estimate;
    lines.push(
      `${'estimate'.padEnd(LABEL)}${requests.toLocaleString('en-US')} requests, about ${formatDuration(duration_ms)} with --depth ${depth}`,
      `${''.padEnd(LABEL)}(the crawl's model at the tier's leak and the measured round trips: an estimate, not a measurement)`,
    );
  }
  lines.push('', ...report.notes.map((note) => `note: ${note}`), ...report.problems.map((p) => `problem: ${p}`));
  lines.push(
    report.ok
      ? `OK: ready for shopsnap backup --shop ${shopArgument}`
      : "FAILED: grant the missing scopes to the app in the shop's admin (Apps › Develop apps › Configuration), reinstall it, and check again",
  );
  return `${lines.filter((line, i, all) => line !== '' || all[i - 1] !== '').join('\n')}\n`;
}

const LABEL = 13;

/** `count 150 ms, a page: products 1,412 ms, orders 1,905 ms`: each kind of request by its own round trip. */
function roundTripText(roundTrips: CheckReport['round_trip_ms']): string {
  if (roundTrips === null) return '–';
  const pages = Object.entries(roundTrips.page).map(([resource, ms]) => `${resource} ${count(ms)} ms`);
  return `count ${count(roundTrips.count)} ms, a page: ${pages.join(', ')}`;
}

/** `850 ms`, `42 s`, `3 min 20 s`, `2 h 05 min`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ${seconds % 60} s`;
  return `${Math.floor(minutes / 60)} h ${String(minutes % 60).padStart(2, '0')} min`;
}
